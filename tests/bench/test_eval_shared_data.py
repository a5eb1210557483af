"""Smoke test of bench/eval_shared_data.py on a small sample of the shared data folder
(skipped where the folder is absent, as in a fresh clone)."""

from __future__ import annotations

import re

import pytest

from bench import eval_shared_data

needs_data = pytest.mark.skipif(
    not eval_shared_data.DEFAULT_DATA_DIR.is_dir(),
    reason="no shared data folder (../shared/data) beside the repository",
)


def test_bio_titles_are_rebuilt_with_their_entity_spans(tmp_path):
    path = tmp_path / "titles.txt"
    path.write_text(
        "新 O\r\n款 O\r\n保 B-HCCX\r\n温 I-HCCX\r\n杯 I-HCCX\r\n\r\n小 B-HPPX\r\n米 I-HPPX\r\n",
        encoding="utf-8",
    )
    titles = list(eval_shared_data.read_bio_titles(path))
    assert [t.text for t in titles] == ["新款保温杯", "小米"]
    assert titles[0].spans == [("HCCX", 2, 5)]
    assert titles[1].spans == [("HPPX", 0, 2)]


@needs_data
def test_a_small_sample_gives_a_complete_report(tmp_path):
    out = tmp_path / "report.md"
    assert eval_shared_data.main(["--queries", "150", "--titles", "300", "--out", str(out)]) == 0
    report = out.read_text(encoding="utf-8")
    for heading in ("## Segmentation", "## Folding", "## Zero-hit rate of real queries"):
        assert heading in report
    assert "| product words (HCCX) |" in report
    assert "150 queries" in report
    # Words taken from the indexed titles find them, in either script (a few tags cut
    # through a Latin token, and OpenCC leaves a few variant characters alone).
    for name in (
        "tagged product words (simplified, as in the titles)",
        "the same words typed in traditional characters",
    ):
        match = re.search(rf"\| {re.escape(name)} \| 150 \| (\d+) \|", report)
        assert match, name
        assert int(match.group(1)) <= 3, name


def test_without_the_data_folder_it_says_so_and_succeeds(tmp_path, capsys):
    out = tmp_path / "report.md"
    missing = tmp_path / "no-such-folder"
    assert eval_shared_data.main(["--data", str(missing), "--out", str(out)]) == 0
    assert "nothing to evaluate" in capsys.readouterr().out
    assert not out.exists()
