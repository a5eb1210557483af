"""The embedded translation engine (`translation.gloss` through `translation.engines`): words
the lexicon knows are translated, phrases first; brands, model numbers and sizes are kept as
written; the reader's Chinese script is written; any text is handled in bounded work."""

from __future__ import annotations

import pytest

from tradepost.translation import gloss
from tradepost.translation.engines import Kind, supported, translate


def test_traditional_chinese_title_reads_in_english_with_codes_and_sizes_kept():
    result = translate(
        "高露潔 不鏽鋼保溫杯 YX-VF-500 500ml", source="zh-hant", target="en", kind=Kind.TITLE
    )
    words = result.text.split()
    assert "YX-VF-500" in words and "500ml" in words
    assert "Stainless" in words and "Steel" in words
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in result.text)
    assert result.engine == "gloss"


def test_titles_come_in_title_case_and_other_kinds_as_the_lexicon_writes_them():
    title = translate("不锈钢保温杯", source="zh-hans", target="en", kind=Kind.TITLE).text
    attribute = translate("不锈钢保温杯", source="zh-hans", target="en", kind=Kind.ATTRIBUTE)
    assert title.lower() == attribute.text.lower()
    assert title[0].isupper() and attribute.text[0].islower()


def test_a_cut_through_known_words_beats_the_longest_first_match():
    # Longest first takes 批发商 ("wholesaler") and strands 用; the cut is 批发 + 商用.
    assert gloss._segment("批发商用", gloss.load_glossary()) == ["批发", "商用"]
    english = translate("批发商用", source="zh-hans", target="en", kind=Kind.ATTRIBUTE).text
    assert "wholesaler" not in english and len(english.split()) >= 2


def test_unknown_characters_are_left_out_and_counted():
    result = gloss.gloss("保温杯𠀋𠀋", source="zh-hans", target="en")
    assert "𠀋" not in result.text
    assert result.known == 3 and result.wanted == 5
    assert result.untranslated_share == pytest.approx(0.4)


@pytest.mark.parametrize("target", ["zh-hans", "zh-hant"])
def test_english_reads_in_the_readers_script_with_brands_kept(target):
    result = translate(
        "PRADA the Stainless Steel Vacuum Flask 500ml", source="en", target=target, kind="title"
    )
    assert result.text.startswith("PRADA")
    assert "500ml" in result.text and "the" not in result.text
    expected = "不锈钢" if target == "zh-hans" else "不鏽鋼"
    assert expected in result.text


def test_pairs_no_engine_translates_and_empty_text_come_back_unchanged():
    assert not supported("en", "en") and not supported("zh-hans", "zh-hant")
    for text, source, target in (("Bonjour", "fr", "en"), ("  ", "zh-hans", "en")):
        result = translate(text, source=source, target=target, kind=Kind.TITLE)
        assert (result.text, result.engine) == (text, "")


@pytest.mark.parametrize(
    "hostile",
    [
        "保温杯\x00<script>alert(1)</script>",
        "保温杯\ud800 flask",
        "Ã¤Ã¶Ã¼ mojibake",
        "\u202e保温杯\u200b",
    ],
)
def test_hostile_text_is_translated_without_failing_and_stores(hostile):
    for source, target in (("zh-hans", "en"), ("en", "zh-hant")):
        result = translate(hostile, source=source, target=target, kind=Kind.DESCRIPTION)
        assert "\x00" not in result.text
        result.text.encode("utf-8")  # no lone surrogate left


def test_a_huge_text_is_read_only_up_to_the_limit():
    huge = "保温杯" * (gloss.MAX_CHARS * 5)
    result = gloss.gloss(huge, source="zh-hans", target="en")
    assert result.wanted == gloss.MAX_CHARS


def test_english_grammar_words_are_read_in_chinese_not_by_their_content_senses():
    glossed = gloss.gloss("Can you print our logo on the lid?", source="en", target="zh-hans")
    assert "罐头" not in glossed.text  # "can" the verb, not a tin
    assert glossed.text.startswith("能您") and "我们的" in glossed.text
    assert not any("a" <= ch.lower() <= "z" for ch in glossed.text)
    traditional = gloss.gloss("Please quote with your price", source="en", target="zh-hant")
    assert traditional.text.startswith("請") and "您的" in traditional.text
