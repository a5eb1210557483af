"""What the engine does with awkward text: paragraphs kept, garbled text left alone, HTML
never interpreted, and bounded work whatever the length."""

from __future__ import annotations

import time

from tradepost.translation.engines import Kind, translate


def test_a_description_keeps_its_paragraphs():
    result = translate(
        "不锈钢保温杯\n\n容量500ml\n食品级", source="zh-hans", target="en", kind=Kind.DESCRIPTION
    )
    lines = result.text.split("\n")
    assert len(lines) == 4 and lines[1] == ""
    assert "500ml" in lines[2] and "stainless steel" in lines[0].lower()


def test_mojibake_is_left_as_it_is():
    garbled = "ä¸\x8dé”ˆé’¢ä¿æ¸©æ¯"  # 不锈钢保温杯 read as Windows-1252
    for source, target in (("zh-hans", "en"), ("en", "zh-hans")):
        result = translate(garbled, source=source, target=target, kind=Kind.TITLE)
        assert (result.text, result.engine) == (garbled, "")


def test_markup_in_the_text_stays_text():
    result = translate(
        "保温杯 <script>alert(1)</script>", source="zh-hans", target="en", kind=Kind.MESSAGE
    )
    assert result.engine == "gloss"
    assert "<script>" in result.text  # kept as written; the pages escape it


def test_a_huge_description_is_cut_and_translated_in_bounded_time():
    text = ("不锈钢保温杯，容量500ml，食品级304不锈钢。\n" * 20_000)[:400_000]
    started = time.perf_counter()
    result = translate(text, source="zh-hans", target="en", kind=Kind.DESCRIPTION)
    assert time.perf_counter() - started < 20
    assert result.engine == "gloss"
    assert len(result.text) < 200_000
