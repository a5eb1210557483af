"""Matching after the search analysis's folding: traditional and simplified Chinese,
full-width and half-width letters, capitals and accents match alike; Latin-script terms match
whole words only; Chinese terms match inside a run of characters."""

from __future__ import annotations

import pytest

from tradepost.screening.matching import TermMatcher, canonical, fold


def found(terms: list[str], text: str) -> list[str]:
    """The parts of `text` the terms match, as written there."""
    matcher = TermMatcher((number, canonical(term)) for number, term in enumerate(terms, 1))
    return [text[match.start : match.end] for match in matcher.find(text)]


@pytest.mark.parametrize(
    ("term", "text", "expected"),
    [
        # traditional <-> simplified
        ("象牙", "天然象牙雕刻擺件", ["象牙"]),
        ("鋼筆", "高档钢笔礼盒", ["钢笔"]),
        ("钢笔", "高檔鋼筆禮盒", ["鋼筆"]),
        ("槍支", "仿真枪支配件", ["枪支"]),
        # full-width, capitals, accents
        ("abc", "Model ＡＢＣ-1", ["ＡＢＣ"]),
        ("ＡＢＣ", "model abc", ["abc"]),
        ("Gun", "GUN holster", ["GUN"]),
        ("cafe", "Café racer", ["Café"]),
        # whole words for Latin, plurals, possessives
        ("gun", "Nail guns for builders", ["guns"]),
        ("glass", "Shot glasses", ["glasses"]),
        ("gun", "The gun's grip", ["gun"]),
        ("tiger bone", "Tiger-bone wine", ["Tiger-bone"]),
        ("tiger bone", "TIGERBONE", ["TIGERBONE"]),
        # Chinese inside a run, a space between characters does not hide it
        ("象牙", "象 牙 筷子", ["象 牙"]),
        # mixed: the Latin edge is a word edge, the Chinese one is not
        ("AK47步枪", "出售ak47步槍模型", ["ak47步槍"]),
        # invisible characters do not hide a word
        ("gun", "g\u200bun", ["g\u200bun"]),
    ],
)
def test_terms_match_after_folding(term, text, expected):
    assert found([term], text) == expected


@pytest.mark.parametrize(
    ("term", "text"),
    [
        ("gun", "It has begun"),
        ("gun", "A gunsmith's tools"),
        ("gun", "Burgundy red"),
        ("ivory", "Ivorycoast"),
        ("abc", "abcd"),
        ("AK47步枪", "xak47步枪"),
        ("象牙", "象的牙齿"),  # not the same characters in a row
    ],
)
def test_latin_terms_do_not_match_inside_words(term, text):
    assert found([term], text) == []


def test_the_longest_term_wins_and_each_place_is_reported_once():
    assert found(["ivory", "ivory tusk", "tusk"], "Ivory tusk and a tusk, ivory") == [
        "Ivory tusk",
        "tusk",
        "ivory",
    ]


def test_a_match_names_every_term_that_folds_alike():
    matcher = TermMatcher([(1, canonical("tiger bone")), (2, canonical("tigerbone"))])
    (match,) = matcher.find("tiger bone")
    assert set(match.term_ids) == {1, 2}


def test_places_are_those_of_the_original_text():
    text = "ﬁne ①② 象\u3000牙 and GUN"
    (ivory, gun) = found(["象牙", "gun"], text)
    assert ivory == "象\u3000牙" and gun == "GUN"


def test_folding_keeps_the_origin_of_each_character():
    folded = fold("ＡＢＣ ﬁ 鋼筆")
    assert folded.text == "abc fi 钢笔"
    assert folded.span(4, 6) == (4, 5)  # "fi" came from one ligature


def test_canonical_forms():
    assert canonical("  Tiger—Bone!! ") == "tiger bone"
    assert canonical("象 牙") == "象牙"
    assert canonical("ＡＢＣ") == "abc"
    assert canonical("鋼筆") == "钢笔"
    assert canonical("!!!") == ""


def test_an_empty_list_finds_nothing():
    matcher = TermMatcher([])
    assert not matcher and list(matcher.find("anything at all")) == []


def test_hostile_text_is_harmless():
    matcher = TermMatcher([(1, "gun"), (2, "象牙")])
    for text in ["\ud800gun", "\x00\x01", "gun" * 10_000, "[" * 5000, "象" * 20_000]:
        list(matcher.find(text))
