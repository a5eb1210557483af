"""The encoding of a CSV file is found, on files written in each encoding a supplier's computer
writes, from real product titles (../shared/data: Taobao titles in Simplified Chinese, a
Taiwanese marketplace's in Traditional Chinese), and from 1 to 500 rows. A short file is the
hard case: a line of Chinese is also "valid" Korean, Thai or Cyrillic in some code page.

Skipped where the shared data folder is absent (a user's clone); CI always has it."""

from __future__ import annotations

import codecs

import pytest

from tests.factories.imports import BASE_ROW, csv_bytes, table
from tests.shared_data import SHARED_DATA, traditional_titles
from tests.shared_data import taobao_titles as simplified_titles
from tradepost.imports.reading import csv_rows, detect_encoding

needs_shared_data = pytest.mark.skipif(
    not (SHARED_DATA / "taobao_title_ner").is_dir()
    or not (SHARED_DATA / "traditional_titles").is_dir(),
    reason=f"the shared real-data folder is not at {SHARED_DATA} (a fresh clone)",
)


def encodable(titles: list[str], encoding: str) -> list[str]:
    kept = []
    for title in titles:
        try:
            title.encode(encoding)
        except UnicodeEncodeError:
            continue
        kept.append(title)
    return kept


#: (the encoding the file is written in, the titles, the codec names that read it right)
CASES = [
    ("utf-8", "simplified", {"utf-8"}),
    ("utf-8-sig", "simplified", {"utf-8-sig"}),
    ("utf-16", "simplified", {"utf-16"}),  # with a byte-order mark, as Excel writes it
    ("utf-16-be", "traditional", {"utf-16-be"}),  # without one
    ("gb18030", "simplified", {"gb18030"}),
    ("gbk", "simplified", {"gb18030"}),
    ("gb2312", "simplified", {"gb18030"}),
    ("gbk", "traditional", {"gb18030"}),
    ("big5", "traditional", {"big5", "big5hkscs"}),
    ("utf-8", "traditional", {"utf-8"}),
]
SIZES = [1, 2, 5, 20, 100, 500]


def catalogue(titles: list[str], encoding: str) -> tuple[bytes, str]:
    rows = [{**BASE_ROW, "sku": f"SKU-{n}", "title": title} for n, title in enumerate(titles)]
    data = csv_bytes(table(rows), encoding="utf-8")
    text = data.decode("utf-8")
    return text.encode(encoding), text


@needs_shared_data
@pytest.mark.parametrize(("encoding", "script", "right"), CASES)
def test_the_encoding_of_real_titles_is_found_at_every_size(encoding, script, right):
    pool = simplified_titles(3_000) if script == "simplified" else traditional_titles(3_000)
    pool = encodable(pool, "gb2312" if encoding == "gb2312" else encoding)
    misses = []
    cases = 0
    for size in SIZES:
        for start in range(0, 20 * size, 2 * size + 1):  # several files of each size
            titles = pool[start : start + size]
            if len(titles) < size:
                continue
            data, text = catalogue(titles, encoding)
            found = detect_encoding(data)
            cases += 1
            if found not in right or data.decode(found).lstrip("\ufeff") != text:
                misses.append((size, start, found))
    assert cases >= 30
    assert misses == [], f"{len(misses)} of {cases} files read wrong: {misses[:5]}"


@needs_shared_data
@pytest.mark.parametrize(("encoding", "script", "right"), CASES)
def test_every_title_is_read_back_as_written(encoding, script, right):
    pool = simplified_titles(400) if script == "simplified" else traditional_titles(400)
    titles = encodable(pool, "gb2312" if encoding == "gb2312" else encoding)[:300]
    data, _text = catalogue(titles, encoding)
    found = detect_encoding(data)
    import io

    rows = list(csv_rows(io.BytesIO(data), found))
    assert [row.cells[1] for row in rows[1:]] == titles


def test_utf16_without_a_byte_order_mark_is_found():
    data = codecs.encode("SKU,Title\nA-1,不锈钢保温杯\n", "utf-16-le")
    assert detect_encoding(data) == "utf-16-le"


@needs_shared_data
def test_an_upload_shows_the_encoding_found_and_reads_in_the_one_chosen(supplier):
    titles = encodable(simplified_titles(50), "gbk")[:20]
    data, _text = catalogue(titles, "gbk")
    job = supplier.upload(data)
    assert (job.detected_encoding, job.encoding, job.new_rows) == ("gb18030", "gb18030", 20)
    assert job.flagged_rows == 0
    # Read as Big5 (a wrong choice), most titles come out garbled and are flagged (GBK read
    # as Big5 is the hardest damage to see: some lines are Big5's everyday characters too).
    from tradepost.imports.services import import_recheck

    job = import_recheck(actor=supplier.owner, job=job, encoding="big5")
    assert job.encoding == "big5" and job.flagged_rows >= 10, (job.flagged_rows, job.rows_total)
