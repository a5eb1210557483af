"""Smoke test of `tradepost bench search` with tiny numbers (the real runs are not tests)."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from bench import search_bench

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
        for method in ("service", "tantivy", "fts5"):
            assert row[method]["n"] >= 1 and row[method]["p99"] >= row[method]["p50"] > 0
    assert "| common+f |" in (tmp_path / "latest.md").read_text("utf-8")
    # A small catalogue lists only some product types, but some queries find something.
    assert report["hits"]["service"]["zero_hit_queries"] < report["queries"]


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
