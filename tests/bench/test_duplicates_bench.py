"""`tradepost bench duplicates` (bench/duplicates_bench.py): the pieces of the quality report
on a few pairs, and the whole timing on a small catalogue as a smoke test."""

from __future__ import annotations

import random
from pathlib import Path

import opencc
import pytest

from bench import duplicates_bench as bench


def test_prf_and_the_threshold_with_the_best_f1():
    assert bench.prf([True, True, False, False], [True, False, True, False]) == {
        "precision": 0.5,
        "recall": 0.5,
        "f1": 0.5,
        "pairs": 3,
    }
    scores = [0.9, 0.8, 0.3, 0.2]
    assert bench.best_threshold(scores, [True, True, False, False]) == 0.31


def test_a_record_becomes_a_listing(tmp_path: Path):
    folder = tmp_path / "entity_matching" / "Walmart-Amazon"
    folder.mkdir(parents=True)
    left = "COL title VAL cordless phone COL brand VAL panasonic COL modelno VAL kx-tg1032s"
    right = "COL title VAL panasonic phone COL category VAL phones COL price VAL 9.9"
    (folder / "valid.txt").write_text(f"{left} \t{right} \t1\n", "utf-8")
    (pair,) = bench.load_pairs(tmp_path, "Walmart-Amazon", "valid")
    assert pair.match
    assert pair.left == bench.Listing("cordless phone", "panasonic\nkx-tg1032s")
    assert pair.right == bench.Listing("panasonic phone", "")  # no category, no price
    assert bench.load_pairs(tmp_path, "Walmart-Amazon", "test") == []


def test_the_chinese_copies_are_simplified_and_reworded():
    rng = random.Random(1)
    title = "不鏽鋼保溫杯 雙層真空 500ml 商務辦公"
    copy = bench.reworded_by_parts(title, rng, opencc.OpenCC("t2s"))
    assert "鏽" not in copy and any(word in copy for word in bench.SALES_WORDS)


@pytest.mark.django_db
def test_the_timing_runs_on_a_small_catalogue(category_tree):
    report = bench.speed(
        products=60, reference=20, samples=10, seed=3, workers=1, say=lambda _text: None
    )
    assert report["listings_of_the_company"] == 60
    assert report["reference_listings"] == 20
    assert report["fingerprints"] == 80
    assert report["band_rows"] == 80 * 20
    assert report["check_100k"]["p50_ms"] > 0
    text = bench.markdown({"started": "now", "machine": "here", "speed": report})
    assert "Publish check at 60 listings of one company" in text
