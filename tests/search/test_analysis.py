"""The text-analysis pipeline: normalisation, the two index fields, and query analysis."""

from __future__ import annotations

import pytest

from tests.shared_data import SHARED_DATA, taobao_titles
from tradepost.search.analysis import (
    MAX_QUERY_CHARS,
    AnalyzedQuery,
    analyze_cjk_grams,
    analyze_fields,
    analyze_query,
    analyze_words,
    normalize,
    user_dictionary_words,
)

# --- normalize --------------------------------------------------------------------------


def test_normalize_folds_full_width_case_and_traditional():
    assert normalize("ＬＥＤ ｌｅｄ １２Ｖ") == "led led 12v"
    assert normalize("不鏽鋼保溫杯") == "不锈钢保温杯"
    assert normalize("鋼筆") == "钢笔"
    assert normalize("  Stainless\tSteel\n") == "stainless steel"


@pytest.mark.parametrize(
    "hostile",
    ["\ud800", "a\udfffb", "\x00\x01\x1f\x7f\x9f", "\u200b\ufeff\u202e", "x" * 10_000, ""],
)
def test_normalize_never_raises_and_strips_what_cannot_be_stored(hostile):
    result = normalize(hostile)
    result.encode("utf-8")  # no lone surrogate survives
    assert not any(ord(ch) < 32 or 0x7F <= ord(ch) <= 0x9F for ch in result)
    assert "\u200b" not in result


# --- analyze_words: Chinese -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("不锈钢保温杯", ["不锈钢", "保温杯"]),
        ("圆珠笔批发", ["圆珠笔", "批发"]),
        ("充电宝", ["充电宝"]),
        ("太阳能板", ["太阳能板"]),
        ("锂电池数据线", ["锂电池", "数据线"]),
        ("手机壳硅胶防摔", ["手机壳", "硅胶", "防摔"]),
    ],
)
def test_trade_terms_are_segmented_whole(text, expected):
    assert analyze_words(text) == expected


def test_compounds_of_two_words_stay_split_so_both_parts_match():
    assert analyze_words("蓝牙耳机") == ["蓝牙", "耳机"]
    assert analyze_words("移动电源") == ["移动", "电源"]


def test_traditional_and_simplified_give_identical_tokens():
    assert analyze_words("鋼筆") == analyze_words("钢笔") == ["钢笔"]
    assert analyze_words("不鏽鋼保溫杯") == analyze_words("不锈钢保温杯")
    assert analyze_cjk_grams("不鏽鋼保溫杯") == analyze_cjk_grams("不锈钢保温杯")


def test_user_dictionary_is_shipped_and_loaded():
    words = user_dictionary_words()
    assert len(words) >= 300
    assert {"保温杯", "圆珠笔", "不锈钢", "充电宝", "太阳能板"} <= set(words)
    for word in words:
        assert analyze_words(word) == [normalize(word)], word


# --- analyze_words: Latin, numbers, units -------------------------------------------------


def test_full_width_and_case_fold_to_ascii():
    assert analyze_words("ＬＥＤ") == analyze_words("ｌｅｄ") == analyze_words("LED") == ["led"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("12V", ["12v"]),
        ("１２Ｖ", ["12v"]),
        ("500ml", ["500ml"]),
        ("500 ml", ["500ml"]),
        ("500ML", ["500ml"]),
        ("500毫升", ["500ml"]),
        ("3.5mm", ["3.5mm"]),
        ("12 inch", ["12in"]),
        ("12inch", ["12in"]),
        ("55寸", ["55in"]),
        ("1.5米", ["1.5m"]),
        ("304 stainless", ["304", "stainless"]),
        ("304不锈钢", ["304", "不锈钢"]),
        ("usb3.0", ["usb3.0"]),
        ("M8", ["m8"]),
    ],
)
def test_numbers_keep_their_units(text, expected):
    assert analyze_words(text) == expected


def test_units_do_not_swallow_words():
    assert analyze_words("3 in 1") == ["3", "1"]
    assert analyze_words("米色") == ["米色"]
    assert "米色" in analyze_words("2米色")


@pytest.mark.parametrize(
    ("plural", "singular"),
    [
        ("flasks", "flask"),
        ("bottles", "bottle"),
        ("Boxes", "box"),
        ("batteries", "battery"),
        ("lenses", "lens"),
        ("leggings", "legging"),
    ],
)
def test_english_is_stemmed(plural, singular):
    assert analyze_words(plural) == analyze_words(singular)


@pytest.mark.parametrize(
    ("british", "american"),
    [
        ("colour", "color"),
        ("colours", "colors"),
        ("aluminium", "aluminum"),
        ("grey", "gray"),
        ("tyres", "tires"),
        ("moulding", "molding"),
        ("jewellery", "jewelry"),
        ("metre", "meter"),
        ("litres", "liters"),
        ("customised", "customized"),
    ],
)
def test_british_spellings_fold_to_american(british, american):
    assert analyze_words(british) == analyze_words(american)


def test_stop_words_possessives_and_accents():
    assert analyze_words("Case for the iPhone") == ["case", "iphon"]
    assert analyze_words("Men's Shoes") == analyze_words("men shoes")
    assert analyze_words("Café crème") == ["cafe", "creme"]


def test_mixed_title():
    tokens = analyze_words("Stainless Steel Vacuum Flasks 500ML 304不锈钢真空保温杯 ＬＥＤ")
    assert tokens == [
        "stainless",
        "steel",
        "vacuum",
        "flask",
        "500ml",
        "304",
        "不锈钢",
        "真空",
        "保温杯",
        "led",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "!!! ??? ...",
        "\ud800\udfff",
        "\x00\x07 tab\there",
        "🙂🙂 emoji 🙂",
        "Кабель USB кабель",
        "かわいいケース",
        "x" * 10_000,
        "保温杯" * 3_000,
    ],
)
def test_tokens_are_never_empty_or_spaced(text):
    for token in analyze_words(text) + analyze_cjk_grams(text):
        assert token
        assert not any(ch.isspace() for ch in token)
        token.encode("utf-8")


# --- analyze_cjk_grams ------------------------------------------------------------------


def test_cjk_grams_are_unigrams_then_bigrams_per_run():
    assert analyze_cjk_grams("保温杯") == ["保", "温", "杯", "保温", "温杯"]
    assert analyze_cjk_grams("LED灯 钢笔") == ["灯", "钢", "笔", "钢笔"]
    assert analyze_cjk_grams("笔") == ["笔"]


def test_cjk_grams_are_empty_for_non_cjk_text():
    assert analyze_cjk_grams("stainless steel 304") == []
    assert analyze_cjk_grams("") == []


def test_analyze_fields_is_both_fields_at_once():
    for text in ["不鏽鋼保溫杯 500ML", "Stainless Steel Flasks", "", "\ud800"]:
        assert analyze_fields(text) == (analyze_words(text), analyze_cjk_grams(text))


# --- analyze_query ----------------------------------------------------------------------


def test_query_fields():
    query = analyze_query('"Stainless Steel" vacuum FLASKS 鋼筆')
    assert query.words == ["stainless", "steel", "vacuum", "flask", "钢笔"]
    assert query.grams == ["钢", "笔", "钢笔"]
    assert query.phrases == [["stainless", "steel"]]
    assert query.latin_terms == ["stainless", "steel", "vacuum", "flasks"]
    assert not query.is_empty


def test_query_words_are_deduplicated_and_curly_quotes_make_phrases():
    query = analyze_query("led LED ｌｅｄ “ballpoint pens”")
    assert query.words == ["led", "ballpoint", "pen"]
    assert query.phrases == [["ballpoint", "pen"]]


def test_unclosed_quote_is_ignored():
    query = analyze_query('"vacuum flask')
    assert query.phrases == []
    assert query.words == ["vacuum", "flask"]


HOSTILE_QUERIES = [
    "x" * 10_000,
    "保温杯" * 5_000,
    "\x00\x01\x02\x1b[31m\x7f",
    "\ud800",
    "abc\udfffdef",
    "!!!???...,,,;;;",
    "。，、！？【】（）",
    '"',
    '""',
    '"""""',
    "*",
    "***:::",
    "title:(led OR lamp) AND NOT price:[1 TO 5]",
    "AND",
    "OR NOT",
    "(((",
    "'; DROP TABLE catalog_product; --",
    "1' OR '1'='1",
    "%' UNION SELECT * FROM auth_user --",
    "<script>alert(1)</script>",
    "",
    "   ",
    "\t\n",
    "\u200b\u200b",
    "🙂" * 500,
]


@pytest.mark.parametrize("hostile", HOSTILE_QUERIES)
def test_hostile_queries_never_raise(hostile):
    query = analyze_query(hostile)
    assert isinstance(query, AnalyzedQuery)
    assert len(query.text) <= MAX_QUERY_CHARS
    assert len(query.words) <= MAX_QUERY_CHARS
    assert query.is_empty == (not query.words and not query.grams)
    for token in query.words + query.grams + query.latin_terms:
        assert token and not any(ch.isspace() for ch in token)
        token.encode("utf-8")


@pytest.mark.parametrize(
    "empty", ["", "   ", "!!!", '"', "*", "AND", "OR NOT", "\ud800", "\x00", "🙂"]
)
def test_queries_without_content_are_empty(empty):
    assert analyze_query(empty).is_empty


def test_query_syntax_is_not_interpreted():
    query = analyze_query("title:(led OR lamp) AND NOT price")
    assert query.words == ["titl", "led", "lamp", "price"]


def test_long_query_is_truncated():
    query = analyze_query("word " * 5_000)
    assert len(query.text) <= MAX_QUERY_CHARS
    assert query.words == ["word"]


# --- real titles --------------------------------------------------------------------------


@pytest.mark.skipif(
    not (SHARED_DATA / "taobao_title_ner").is_dir(),
    reason="the shared real-data folder (../shared/data/taobao_title_ner) is not present",
)
def test_real_taobao_titles_analyse_without_error():
    titles = taobao_titles(1_000)
    assert len(titles) == 1_000
    with_cjk = 0
    for title in titles:
        words = analyze_words(title)
        grams = analyze_cjk_grams(title)
        assert all(token and not any(ch.isspace() for ch in token) for token in words + grams)
        if grams:
            with_cjk += 1
            assert words
        analyze_query(title)
    assert with_cjk > 900
