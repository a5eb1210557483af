"""Smoke test of `tradepost bench search` with tiny numbers (the real runs are not tests)."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from bench import search_bench
from tests.factories.catalog import make_product
from tests.factories.search import index
from tradepost.search.index import searcher

pytestmark = pytest.mark.django_db


def test_bench_writes_every_class_for_every_method(category_tree, tmp_path, capsys):
    call_command(
        "bench", "search", "--products", "300", "--companies", "12", "--per-class", "1",
        "--rounds", "1", "--no-http", "--workers", "1", "--results-dir", str(tmp_path), "-v0",
    )  # fmt: skip
    files = sorted(tmp_path.glob("search-300-*.json"))
    assert len(files) == 1 and (tmp_path / "latest.md").exists()
    report = json.loads(files[0].read_text("utf-8"))
    assert report["products"] == 300
    assert report["index"]["products_per_s"] > 0 and report["index"]["size_mb"] > 0
    assert report["fts5"]["products"] == 300
    classes = {row["class"]: row for row in report["classes"]}
    expected = {"common", "rare", "multi", "traditional", "phrase", "crosslingual"}
    assert expected | {f"{name}+f" for name in expected} | {"all"} == set(classes)
    for row in classes.values():
        for method in ("service", "tantivy", "floor", "fts5"):
            assert row[method]["n"] >= 1 and row[method]["p99"] >= row[method]["p50"] > 0
        assert row["service_vs_floor_p50"] > 0 and row["service_vs_floor_p95"] > 0
    # Timed in the same rounds as the service: as many samples in every class.
    assert all(row["floor"]["n"] == row["service"]["n"] for row in classes.values())
    overall = report["versus_floor"]
    assert overall["floor"] == classes["all"]["floor"]
    assert overall["service_vs_floor_p50"] == classes["all"]["service_vs_floor_p50"]
    text = (tmp_path / "latest.md").read_text("utf-8")
    assert "| common+f |" in text
    assert "floor p50 / p95 / p99" in text and "service / floor p50, p95" in text
    all_line = next(line for line in text.splitlines() if line.startswith("All queries:"))
    assert f"p50 {overall['service_vs_floor_p50']:.1f}x" in all_line
    # A small catalogue lists only some product types, but some queries find something.
    assert report["hits"]["service"]["zero_hit_queries"] < report["queries"]


def test_floor_is_an_or_of_the_words_in_the_title(category_tree):
    """No listing has both words: the floor finds the one with one of them (whatever the
    service makes of the query), and every document for an empty query."""
    one = make_product(title="Zorblex claw hammer")
    other = make_product(title="Cordless drill")
    index(one, other)
    query = search_bench.floor_query("zorblex quuxian")
    assert "Should" in repr(query) and "Must" not in repr(query)
    hits = searcher().search(query, 10, count=False).hits
    assert searcher().fast_field_values("id", [address for _s, address in hits]) == [one.id]
    # Every document (the two companies too: the floor filters nothing), up to ten.
    assert search_bench.Floor().run(search_bench.floor_query("")) == searcher().num_docs == 4

    queries = [search_bench.BenchQuery("multi", "zorblex quuxian", {}, False)]
    results = search_bench.run_queries(queries, rounds=2, fts_path=None)
    assert results.totals["floor"] == [1]
    assert len(results.samples["floor"]["multi"]) == len(results.samples["service"]["multi"])
    assert len(results.samples["floor"]["multi"]) == 2


def test_report_without_a_floor_has_no_ratio():
    """A report of an older run (no floor samples) still renders."""
    results = search_bench.ProcessResults()
    results.add("service", "common", 2.0)
    results.add("tantivy", "common", 1.0)
    classes = search_bench.class_table(results)
    assert "service_vs_floor_p50" not in classes[0]
    assert search_bench.versus_floor(classes) is None
    report = {
        "started": "2025-01-01T00:00:00Z", "products": 1, "machine": "m", "database": "sqlite",
        "queries": 1, "rounds": 1, "index": {"seconds": 0, "products_per_s": 0, "workers": 0,
        "size_mb": 0}, "classes": classes,
    }  # fmt: skip
    text = search_bench.markdown(report)
    assert "All queries:" not in text and "| common | 2.00 / 2.00 / 2.00 |" in text


def test_percentiles_are_nearest_rank():
    samples = [float(n) for n in range(1, 101)]
    assert search_bench.percentile(samples, 0.5) == 50
    assert search_bench.percentile(samples, 0.95) == 95
    assert search_bench.percentile(samples, 0.99) == 99
    assert search_bench.percentile([], 0.5) == 0


def test_query_set_has_about_200_queries_in_six_classes():
    queries = search_bench.load_queries()
    assert 190 <= len(queries) <= 220
    assert {q.klass.removesuffix("+f") for q in queries} == {
        "common", "rare", "multi", "traditional", "phrase", "crosslingual",
    }  # fmt: skip
    assert all(q.facets == q.klass.endswith("+f") for q in queries)
