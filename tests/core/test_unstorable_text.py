"""The one rule for text no database stores (`core.cleaning`): a NUL (PostgreSQL refuses it,
SQLite stores it) and a lone surrogate (UTF-8 cannot encode it). Every entry point asks
`unstorable`, refuses with `refuse_unstorable` or cleans with `storable`."""

from __future__ import annotations

import json

import pytest

from tradepost.core.cleaning import (
    UNSTORABLE,
    UNSTORABLE_MESSAGE,
    FieldInvalid,
    clean_file_name,
    refuse_unstorable,
    storable,
    unstorable,
)

BAD = [
    pytest.param("\x00", id="nul-alone"),
    pytest.param("pen\x00s", id="nul-inside"),
    pytest.param("\ud800", id="high-surrogate-alone"),
    pytest.param("a\udbffb", id="last-high-surrogate"),
    pytest.param("\udc00", id="low-surrogate-alone"),
    pytest.param("x\udfff", id="last-low-surrogate"),
    pytest.param("\udc00\ud800", id="low-then-high"),
    # Two surrogate code points in a `str` are no character: UTF-8 cannot encode them either.
    pytest.param("\ud83d\ude00", id="pair-as-two-code-points"),
    pytest.param("x" * 100_000 + "\x00", id="long-nul-at-the-end"),
    pytest.param("不锈钢" * 10_000 + "\ud800", id="long-surrogate-at-the-end"),
]

GOOD = [
    pytest.param("", id="empty"),
    pytest.param("Vacuum flask 500 ml", id="ascii"),
    pytest.param("不锈钢保温杯 ÄÖÜ ﬁ", id="bmp"),
    pytest.param("🙂 😀 𠀀", id="astral"),
    pytest.param(json.loads('"\\ud83d\\ude00"'), id="json-escaped-pair"),
    pytest.param("\ufffd\x01\x1f\x7f\u200b\ue000\uffff", id="other-odd-but-storable"),
    pytest.param("🙂" * 100_000, id="long-astral"),
]


@pytest.mark.parametrize("text", BAD)
def test_a_nul_or_a_lone_surrogate_is_unstorable(text):
    assert unstorable(text)
    with pytest.raises(FieldInvalid) as refused:
        refuse_unstorable(text)
    assert refused.value.messages == [str(UNSTORABLE_MESSAGE)]
    assert "cannot be stored" in refused.value.messages[0]


@pytest.mark.parametrize("text", GOOD)
def test_any_other_text_is_storable_and_kept_as_it_is(text):
    assert not unstorable(text)
    assert refuse_unstorable(text) is text
    assert storable(text) == text
    assert storable(text, nul=" ", surrogate=" ") == text


@pytest.mark.parametrize("text", BAD + GOOD)
def test_the_quick_check_agrees_with_the_pattern(text):
    assert unstorable(text) == (UNSTORABLE.search(text) is not None)


def test_every_surrogate_code_point_is_unstorable_and_its_neighbours_are_not():
    for code in range(0xD800, 0xE000):
        assert unstorable(f"ok {chr(code)} ok")
    for char in ("\ud7ff", "\ue000", "\U00010000", "\U0010ffff", "\x01"):
        assert not unstorable(f"ok {char} ok")


@pytest.mark.parametrize("text", BAD + GOOD)
def test_storable_text_encodes_and_holds_no_nul(text):
    for clean in (storable(text), storable(text, nul="?", surrogate="?")):
        clean.encode("utf-8")
        assert "\x00" not in clean
        assert not unstorable(clean)


def test_storable_drops_nul_and_replaces_lone_surrogates():
    assert storable("pen\x00s") == "pens"
    assert storable("\x00\x00") == ""
    assert storable("a\ud800b\udfffc") == "a\ufffdb\ufffdc"
    assert storable("\ud83d\ude00") == "\ufffd\ufffd"
    assert storable("a\x00b\ud800c", nul=" ", surrogate=" ") == "a b c"
    assert storable("key\x00\udc80", nul="?", surrogate="?") == "key??"
    assert storable("a\x00b\ud800c", surrogate="?") == "ab?c"
    assert storable("a\ud800", surrogate="\\1") == "a\\1"  # taken as it is, no group


def test_an_uploaded_file_name_is_storable():
    assert clean_file_name("C:\\scans\\lic\x00ence\ud800.pdf") == "licence?.pdf"
    assert clean_file_name("\x00") == "document"
