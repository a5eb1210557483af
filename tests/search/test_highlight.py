"""Unit tests: highlighting and the default exchange rates."""

from __future__ import annotations

from tradepost.search.analysis import analyze_query
from tradepost.search.highlight import highlight_html, highlight_spans


def terms(query: str) -> set[str]:
    analyzed = analyze_query(query)
    return set(analyzed.words) | {g for g in analyzed.grams if len(g) == 2}


def test_latin_words_match_by_their_stems_and_case():
    html = highlight_html("Double-wall FLASKS, 500 ml", terms("flask 500ml"))
    assert str(html) == "Double-wall <mark>FLASKS</mark>, <mark>500 ml</mark>"


def test_chinese_is_highlighted_across_scripts_and_segmentations():
    assert str(highlight_html("不鏽鋼保溫杯", terms("保温杯"))) == "不鏽鋼<mark>保溫杯</mark>"
    # 钢保温 is not a word; its bigrams light up.
    assert str(highlight_html("不锈钢保温杯", terms("钢保温"))) == "不锈<mark>钢保温</mark>杯"


def test_full_width_text_is_highlighted_where_it_is():
    assert str(highlight_html("ＬＥＤ灯", terms("led"))) == "<mark>ＬＥＤ</mark>灯"


def test_nothing_to_highlight():
    assert highlight_spans("", {"x"}) == []
    assert highlight_spans("abc", set()) == []
    assert str(highlight_html("a < b", set())) == "a &lt; b"
