"""`tradepost bench translation` (bench/translation_bench.py): a pairs file of any origin is
read and measured both ways, the report is written, and on the dev pairs of the shared data
the engine reaches the goals of issue #28 and beats the untranslated text and the plain gloss
measured in the same run."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from bench import translation_bench as bench


def test_a_pairs_file_is_measured_both_ways_and_reported(tmp_path: Path):
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text(
        "english_query\ttraditional_chinese_title\n"
        "Stainless Steel Vacuum Flask 500ml\t不鏽鋼保溫杯 500ml\n"
        "only one column\n"
        "Bamboo Cutting Board\t竹砧板\n",
        "utf-8",
    )
    assert [p.english for p in bench.load_pairs(pairs)] == [
        "Stainless Steel Vacuum Flask 500ml",
        "Bamboo Cutting Board",
    ]
    out = StringIO()
    results = tmp_path / "results"
    call_command(
        "bench", "translation", "--pairs", str(pairs), "--results-dir", str(results), stdout=out
    )
    report = out.getvalue()
    assert "| zh-hant>en | engine |" in report and "| en>zh-hans | plain gloss |" in report
    assert (results / "translation-latest.md").read_text("utf-8").startswith("# Translation")
    assert len(list(results.glob("translation-*.json"))) == 1


def test_an_empty_pairs_file_is_refused(tmp_path: Path):
    from django.core.management.base import CommandError

    empty = tmp_path / "empty.tsv"
    empty.write_text("english\tchinese\n", "utf-8")
    with pytest.raises(CommandError, match="no English/Chinese pair"):
        call_command("bench", "translation", "--pairs", str(empty), stdout=StringIO())


@pytest.mark.skipif(
    not bench.DEFAULT_PAIRS.is_file(), reason="the shared title pairs are not beside the checkout"
)
def test_the_dev_pairs_reach_the_goals_and_beat_the_references():
    directions = bench.measure(bench.load_pairs(bench.DEFAULT_PAIRS))
    assert [d.name for d in directions] == ["zh-hant>en", "en>zh-hans"]
    for direction in directions:
        chrf = {system: score["chrF"] for system, score in direction.scores.items()}
        assert chrf["engine"] >= bench.GOALS[direction.name], direction.scores
        assert chrf["engine"] > chrf["plain gloss"] > chrf["untranslated"]
