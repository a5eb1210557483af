"""The shared input-cleaning helpers of the write services."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tradepost.core.cleaning import decimal_or_none, one_line, text_or_none


def test_text_is_stripped_of_nul_and_outer_space_and_other_types_are_refused():
    assert text_or_none("  pen\x00s \n") == "pens"
    assert text_or_none(None) == ""
    assert text_or_none(12) is None
    assert text_or_none(["a"]) is None


def test_one_line_folds_every_kind_of_white_space():
    assert one_line(" a\n\tb   c ") == "a b c"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("1,250.50", Decimal("1250.50")), (3, Decimal(3)), (0.1, Decimal("0.1")), ("", None)],
)
def test_numbers_are_read_from_text_and_numbers(raw, expected):
    assert decimal_or_none(raw) == expected


@pytest.mark.parametrize("raw", [True, float("nan"), float("inf"), "NaN", "Infinity", "ten", [1]])
def test_anything_but_a_finite_number_is_refused(raw):
    with pytest.raises(ValueError):
        decimal_or_none(raw)
