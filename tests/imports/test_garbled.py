"""Garbled text (mojibake) is flagged cell by cell, with a suggestion where the damage can be
undone, and never changed: the product gets what the file says. Real titles (../shared/data)
are not flagged; real titles damaged the usual ways are."""

from __future__ import annotations

import re

import pytest

from tests.factories.imports import product_rows
from tests.imports.test_encodings import (
    needs_shared_data,
    simplified_titles,
    traditional_titles,
)
from tradepost.catalog.models import Product
from tradepost.core.garbled import Damage, check_text


@pytest.mark.parametrize(
    ("text", "damage", "suggestion"),
    [
        # UTF-8 read as Windows-1252 (ftfy undoes it)
        ("ä¸\x8dé”ˆé’¢ä¿\x9dæ¸©æ\x9d¯", Damage.MOJIBAKE, "不锈钢保温杯"),
        # GBK read as Latin-1
        ("²»Ðâ¸Ö±£ÎÂ±­", Damage.MOJIBAKE, "不锈钢保温杯"),
        # UTF-8 read as GBK
        ("涓嶉攬閽㈡澂", Damage.MOJIBAKE, "不锈钢杯"),
        # characters a converter could not write, and the example of them
        ("?！瘪R", Damage.LOST, None),
        ("不锈钢??杯", Damage.LOST, None),
        ("锟斤拷锟斤拷", Damage.LOST, None),
        ("保温\ufffd杯", Damage.LOST, None),
        # pinyin left by a converter (the "業(yè)")
        ("專業(yè)生產保溫杯", Damage.PINYIN, "專業生產保溫杯"),
    ],
)
def test_damage_is_recognised_with_its_repair(text, damage, suggestion):
    garbled = check_text(text)
    assert garbled is not None
    assert (garbled.damage, garbled.suggestion) == (damage, suggestion)


@pytest.mark.parametrize(
    "text",
    [
        "Stainless steel flask",
        "Café crème, 250 ml",
        "不锈钢保温杯 500ml",
        "不鏽鋼保溫杯",
        "鴯鶓霜 250g",
        "可以定制吗?",
    ],
)
def test_sound_text_is_not_flagged(text):
    assert check_text(text) is None


_LOST_BEFORE = re.compile(r"\?[\u3400-\u9fff\uff00-\uffef]")


def _damaged_beforehand(title: str) -> bool:
    """Some of the shared titles were damaged before anyone here read them: U+FFFD, control
    and private-use characters, a question mark where a character was ("下?屋鋏")."""
    return (
        "\ufffd" in title
        or bool(_LOST_BEFORE.search(title))
        or any("\x80" <= char <= "\x9f" or "\ue000" <= char <= "\uf8ff" for char in title)
    )


@needs_shared_data
def test_no_sound_real_title_is_flagged():
    titles = simplified_titles(20_000) + traditional_titles(10_000)
    sound = [title for title in titles if not _damaged_beforehand(title)]
    assert len(sound) > 15_000
    flagged = [title for title in sound if check_text(title)]
    assert flagged == []
    # And the damaged ones among them are flagged, every one.
    damaged = [title for title in titles if _damaged_beforehand(title)]
    assert damaged and all(check_text(title) for title in damaged)


def _damage(title: str, written_in: str, read_as: str) -> str | None:
    try:
        raw = title.encode(written_in)
    except UnicodeEncodeError:
        return None
    try:
        return raw.decode(read_as)
    except UnicodeDecodeError:
        return raw.decode(read_as, errors="replace")


@needs_shared_data
@pytest.mark.parametrize(
    ("written_in", "read_as", "flagged_at_least", "repaired_at_least"),
    [
        ("utf-8", "cp1252", 0.99, 0.0),
        ("utf-8", "gbk", 0.99, 0.0),
        ("gbk", "latin-1", 0.99, 0.95),
        ("big5", "latin-1", 0.9, 0.8),
        ("gbk", "big5", 0.6, 0.25),
        ("big5", "gbk", 0.9, 0.0),
    ],
)
def test_real_titles_damaged_the_usual_ways_are_flagged(
    written_in, read_as, flagged_at_least, repaired_at_least
):
    titles = traditional_titles(2_000) if written_in == "big5" else simplified_titles(2_000)
    flagged = repaired = count = 0
    for title in titles:
        damaged = _damage(title, written_in, read_as)
        if damaged is None or damaged == title:
            continue
        count += 1
        garbled = check_text(damaged)
        flagged += garbled is not None
        repaired += garbled is not None and garbled.suggestion == title
    assert count > 1_000
    assert flagged / count >= flagged_at_least
    assert repaired / count >= repaired_at_least


@pytest.mark.django_db
def test_a_garbled_cell_is_flagged_in_the_preview_and_imported_as_written(supplier):
    garbled_title = "²»Ðâ¸Ö±£ÎÂ±­ 500ml"
    rows = product_rows(2)
    rows[1]["title"] = garbled_title
    job = supplier.upload_rows(rows, mode="valid")
    assert (job.new_rows, job.rejected_rows, job.flagged_rows) == (2, 0, 1)
    (row,) = job.rows.all()
    assert (row.line, row.outcome) == (3, "new")
    assert row.warnings == [
        {
            "column": "Title",
            "damage": "mojibake",
            "text": garbled_title,
            "suggestion": "不锈钢保温杯 500ml",
        }
    ]
    supplier.confirm(job)
    assert Product.objects.get(sku="VF-1").title == garbled_title


def test_the_texts_left_out_of_ftfys_check_are_ones_it_cannot_find_bad():
    """`garbled._MAYBE_BAD` leaves out of `ftfy.is_bad` the texts without any character its
    expression names: read from ftfy's own expression (an upgrade that names others fails
    here), and tried on every character outside the set, after ASCII and after itself."""
    import ftfy
    from ftfy.badness import BADNESS_RE

    from tradepost.core.garbled import _MAYBE_BAD

    named = {char for char in BADNESS_RE.pattern if ord(char) >= 0x80}
    named |= {chr(int(code, 16)) for code in re.findall(r"\\x([0-9a-fA-F]{2})", BADNESS_RE.pattern)}
    assert named and all(_MAYBE_BAD.match(char) for char in named if ord(char) >= 0x80)
    outside = [
        chr(code)
        for code in range(0x80, 0x10000)
        if not 0xD800 <= code <= 0xDFFF and not _MAYBE_BAD.match(chr(code))
    ]
    assert len(outside) > 20_000
    for char in outside:
        assert not ftfy.is_bad(f"a{char}{char} {char}a"), hex(ord(char))
