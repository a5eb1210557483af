"""The bilingual glossary and cross-lingual query expansion."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from tradepost.search import glossary as glossary_module
from tradepost.search.analysis import analyze_words
from tradepost.search.glossary import (
    MAX_EXPANSIONS,
    Expansion,
    expand_query,
    glossary_pairs,
    load_glossary,
    translate_words,
)

HAN = re.compile("[\u4e00-\u9fff]")


def _file_pairs() -> list[tuple[str, str]]:
    text = resources.files("tradepost.search").joinpath("data/glossary.tsv").read_text("utf-8")
    pairs = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        assert len(fields) == 2, f"line {number}: {line!r}"
        pairs.append((fields[0], fields[1]))
    return pairs


def test_glossary_file_has_at_least_3000_distinct_clean_pairs():
    pairs = _file_pairs()
    assert len(set(pairs)) >= 3_000
    assert len(set(pairs)) == len(pairs), "duplicate lines"
    for english, chinese in pairs:
        assert english and chinese
        assert english == english.strip().lower() and "  " not in english
        assert not HAN.search(english), english
        assert HAN.search(chinese), chinese
        assert chinese == chinese.strip() and " " not in chinese
        assert len(english) <= 60 and len(chinese) <= 12


def test_every_pair_is_loaded():
    loaded = set(glossary_pairs())
    assert set(_file_pairs()) <= loaded


def test_glossary_covers_many_industries():
    english = {english for english, _ in glossary_pairs()}
    for term in [
        "stainless steel",
        "cotton",
        "pet",
        "abs",
        "waterproof",
        "wireless",
        "portable",
        "wholesale",
        "oem",
        "factory",
        "supplier",
        "vacuum flask",
        "ballpoint pen",
        "power bank",
        "solar panel",
        "lithium battery",
        "excavator",
        "brake pad",
        "t-shirt",
        "packaging box",
        "face mask",
        "sofa",
        "tile",
        "fertilizer",
        "green tea",
        "building blocks",
        "wheelchair",
    ]:
        assert term in english, term


def test_load_is_cached():
    assert load_glossary() is load_glossary()


# --- English -> Chinese -------------------------------------------------------------------


def test_stainless_steel_vacuum_flask_expands_to_chinese():
    expansion = expand_query("stainless steel vacuum flask")
    assert "不锈钢保温杯" in expansion.labels
    assert "保温杯" in expansion.labels
    assert {"不锈钢", "保温杯"} <= set(expansion.terms)


def test_english_matching_is_analysed():
    # Case, plural and full-width forms match the same entry.
    for query in ["Stainless Steel Vacuum Flasks", "ＳＴＡＩＮＬＥＳＳ steel vacuum FLASK"]:
        assert "不锈钢保温杯" in expand_query(query).labels


def test_ballpoint_pen_expands_to_chinese():
    expansion = expand_query("ballpoint pen")
    assert expansion.labels[0] == "圆珠笔"
    assert "圆珠笔" in expansion.terms


def test_longest_english_term_wins_and_parts_are_matched():
    expansion = expand_query("power bank wireless")
    assert expansion.labels[:2] == ["充电宝", "移动电源"]
    assert "无线" in expansion.labels
    assert "银行" not in expansion.labels


def test_one_word_heads_are_not_added():
    # A shower curtain is not what 窗帘 (window curtains) lists.
    expansion = expand_query("shower curtain")
    assert expansion.labels == ["浴帘"]
    assert expand_query("蓝牙耳机").matched == ["蓝牙耳机"]


def test_translations_that_analyse_alike_are_one():
    labels = expand_query("手套").labels
    assert "gloves" in labels
    assert "glove" not in labels


def test_trade_and_marketing_words_are_kept_apart():
    expansion = expand_query("卫裤2021新款时尚")
    # The curated glossary first, then the lexicon's (joggers...).
    assert expansion.labels[0] == "sweatpants"
    assert expansion.matched == ["卫裤"]
    assert {"new arrival", "fashion"} <= set(expansion.modifier_labels)
    assert expansion.modifier_matched == ["新款", "时尚"]

    expansion = expand_query("wholesale ballpoint pen")
    assert expansion.labels[0] == "圆珠笔"
    assert "批发" in expansion.modifier_labels
    assert "批发" in expansion.modifier_terms
    assert "批发" not in expansion.terms


def test_gender_season_and_size_words_are_modifiers():
    expansion = expand_query("夏季新款女装连衣裙")
    assert expansion.matched == ["连衣裙"]
    assert "dress" in expansion.labels
    assert {"summer", "women's clothing"} <= set(expansion.modifier_labels)
    assert expand_query("women mini fan").labels[0] == "风扇"


def test_a_query_of_modifiers_only_expands_them():
    expansion = expand_query("wholesale")
    assert expansion.labels[0] == "批发"
    assert expansion.matched == ["wholesale"]
    assert expansion.modifier_labels == []
    assert expand_query("女装").labels[0] == "women's clothing"


def test_taiwan_usage_expands():
    assert expand_query("行動電源").labels[0] == "power bank"
    assert expand_query("原子筆").labels == ["ballpoint pen"]
    assert "air fryer" in expand_query("氣炸鍋").labels


# --- Chinese -> English -------------------------------------------------------------------


def test_ballpoint_pen_in_chinese_expands_to_english():
    expansion = expand_query("圆珠笔")
    assert expansion.labels[0] == "ballpoint pen"
    assert {"ballpoint", "pen"} <= set(expansion.terms)


def test_traditional_chinese_is_folded_before_lookup():
    expansion = expand_query("鋼筆")
    assert expansion.labels[0] == "fountain pen"
    assert expansion.terms[:2] == analyze_words("fountain pen")
    assert expand_query("不鏽鋼保溫杯").labels == expand_query("不锈钢保温杯").labels


def test_chinese_compound_expands_with_its_head():
    expansion = expand_query("不锈钢保温杯")
    assert expansion.labels[0] == "stainless steel vacuum flask"
    assert "vacuum flask" in expansion.labels
    assert expansion.matched[:2] == ["不锈钢保温杯", "保温杯"]


def test_mixed_script_terms_match():
    assert "n95 mask" in expand_query("N95口罩").labels
    assert "3d printer" in expand_query("3D打印机").labels


def test_terms_are_analysed_tokens():
    for query in ["圆珠笔", "stainless steel vacuum flask", "蓝牙耳机", "solar panel"]:
        expansion = expand_query(query)
        assert expansion.terms
        analysed = set()
        for label in expansion.labels:
            analysed.update(analyze_words(label))
        assert set(expansion.terms) == analysed


def test_expansion_is_bounded():
    expansion = expand_query(" ".join(english for english, _ in glossary_pairs()[:200]))
    assert len(expansion.labels) <= MAX_EXPANSIONS


@pytest.mark.parametrize(
    "query",
    [
        "",
        "   ",
        "\ud800",
        "\x00\x01",
        "!!!",
        "AND OR NOT * : ( )",
        "'; DROP TABLE x; --",
        "x" * 10_000,
        "保温杯" * 5_000,
        "zzzqqq",
    ],
)
def test_expansion_never_raises(query):
    expansion = expand_query(query)
    assert isinstance(expansion, Expansion)
    for token in expansion.terms:
        assert token and not any(ch.isspace() for ch in token)


def test_nothing_to_expand():
    assert expand_query("zzzqqq").is_empty
    assert expand_query("").labels == []


# --- category names -----------------------------------------------------------------------


def test_category_names_are_folded_in(monkeypatch):
    monkeypatch.setattr(
        glossary_module,
        "category_pairs",
        lambda: [("Widget Sprockets", "小部件链轮"), ("Fancy Gizmos", "花哨小玩意")],
    )
    glossary_module.load_glossary.cache_clear()
    try:
        assert expand_query("widget sprocket").labels[0] == "小部件链轮"
        assert expand_query("花哨小玩意").labels[0] == "fancy gizmos"
    finally:
        glossary_module.load_glossary.cache_clear()


def test_category_tree_names_are_read_recursively():
    tree = [
        {
            "en": "Bags & Cases",
            "zh_hans": "箱包/皮具",
            "children": [{"en": "Backpacks", "zh_hans": "双肩包", "children": []}],
        },
        {"name_en": "Home & Garden", "name_zh_hans": "家居园艺"},
    ]
    assert list(glossary_module._category_names(tree)) == [
        ("Bags & Cases", "箱包/皮具"),
        ("Backpacks", "双肩包"),
        ("Home & Garden", "家居园艺"),
    ]


def test_shipped_category_tree_is_folded_in():
    pairs = glossary_module.category_pairs()
    if not pairs:
        pytest.skip("the category tree data file is not present")
    loaded = set(glossary_pairs())
    assert {(english.lower(), chinese) for english, chinese in pairs} <= loaded


# --- word by word (ranked search) ---------------------------------------------------------


def _translations(query: str) -> dict[str, list[str]]:
    found, _labels = translate_words(analyze_words(query))
    return {word: [t.label for t in ts] for word, ts in found.items()}


def test_a_phrase_is_translated_as_a_phrase_before_its_words():
    found = _translations("vacuum flask for tea")
    # "vacuum flask" is one term: both words carry its translations, never "vacuum" alone.
    assert "保温杯" in found["vacuum"] and found["vacuum"] == found["flask"]
    assert not any("吸尘" in label for label in found["vacuum"])
    # The longest term wins: the whole phrase when the lexicon has it.
    assert _translations("stainless steel vacuum flask")["stainless"] == ["不锈钢保温杯"]


def test_words_the_lexicon_does_not_know_get_no_translation():
    found = _translations("zorblex vacuum flask")
    assert "zorblex" not in found and "vacuum" in found


def test_translations_are_weighted_surest_first_and_bounded():
    found, _labels = translate_words(analyze_words("case"))
    weights = [t.weight for t in found["case"]]
    assert weights == sorted(weights, reverse=True)
    assert all(0 < w <= 1 for w in weights)
    assert len([t for t in found["case"] if t.weight > 0.5]) <= 3


def test_chinese_words_translate_to_english_and_a_compound_through_its_head():
    assert "fountain pen" in _translations("鋼筆")["钢笔"]
    glossary = load_glossary()
    # A word the lexicon lacks is looked up by its ending, the head of the compound...
    entry = glossary_module._chinese_entry("蓝色手机壳", glossary)
    assert entry is not None and entry[0] == "手机壳"
    # ...never by its beginning (拉拉 of 拉拉裤 is something else entirely).
    assert glossary_module._chinese_entry("拉拉裤", glossary) is None


def test_synonyms_come_through_the_other_language_below_the_translations():
    found, _labels = translate_words(analyze_words("thermos"))
    labels = [t.label for t in found["thermo"]]
    weights = {t.label: t.weight for t in found["thermo"]}
    chinese = [label for label in labels if any("\u4e00" <= ch <= "\u9fff" for ch in label)]
    english = [label for label in labels if label not in chinese]
    assert chinese and english  # 保温瓶..., and English words translated the same way
    assert max(weights[e] for e in english) <= max(weights[c] for c in chinese)
