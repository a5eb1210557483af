"""The real data others wrote for tests (../shared/data beside the checkout; its README says
what each folder holds): where it is, and the product titles several tests read from it.
CI always has the folder; a user's fresh clone may not, and the tests that need it skip."""

from __future__ import annotations

import csv
from pathlib import Path

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def taobao_titles(limit: int) -> list[str]:
    """Up to `limit` simplified-Chinese Taobao titles (`taobao_title_ner`, one character a
    line, a blank line between titles)."""
    titles: list[str] = []
    characters: list[str] = []
    with (SHARED_DATA / "taobao_title_ner" / "train.txt").open(encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                if characters:
                    titles.append("".join(characters))
                    characters = []
                    if len(titles) >= limit:
                        break
                continue
            characters.append(line.split(" ")[0] or " ")
    return titles


def traditional_titles(limit: int) -> list[str]:
    """Up to `limit` traditional-Chinese titles of a Taiwanese marketplace."""
    path = SHARED_DATA / "traditional_titles" / "test_tcn.csv"
    with path.open(encoding="utf-8-sig", newline="") as lines:
        rows = list(csv.reader(lines))[1 : limit + 1]
    return [row[0] for row in rows]
