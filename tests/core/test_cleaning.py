"""The shared input-cleaning helpers of the write services."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tradepost.catalog.errors import ProductError, ProductErrorCode
from tradepost.core.cleaning import (
    FieldErrors,
    FieldInvalid,
    clean_certifications,
    clean_choice,
    clean_choices,
    clean_country,
    clean_currency,
    clean_flag,
    clean_lead_time_days,
    clean_listing_language,
    clean_number,
    clean_rich_text,
    clean_text,
    clean_whole_number,
    decimal_or_none,
    one_line,
    text_or_none,
)


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


# --- field cleaners ----------------------------------------------------------------------------


def refusal(cleaner, value, **options) -> list[str]:
    with pytest.raises(FieldInvalid) as caught:
        cleaner(value, **options)
    return caught.value.messages


def test_text_is_one_line_stripped_and_limited():
    assert clean_text("  a\n b ", max_length=5) == "a b"
    assert clean_text(" a\n b ", max_length=5, single_line=False) == "a\n b"
    assert clean_text(None, max_length=5) == ""
    assert refusal(clean_text, 12, max_length=5) == ["Enter text."]
    assert refusal(clean_text, " ", max_length=5, required=True) == ["This field is required."]
    assert refusal(clean_text, "abcdef", max_length=5) == ["Use at most 5 characters."]
    assert refusal(clean_text, "a<b", max_length=5, markup_free=True) == [
        "Angle brackets are not allowed here."
    ]


def test_rich_text_is_sanitised_and_limited_before_and_after():
    assert clean_rich_text("<p>Hi<script>x</script></p>", max_length=50, max_input_length=100) == (
        "<p>Hi</p>"
    )
    assert refusal(clean_rich_text, "x" * 101, max_length=50, max_input_length=100) == [
        "Use at most 50 characters."
    ]
    assert refusal(clean_rich_text, "x" * 60, max_length=50, max_input_length=100) == [
        "Use at most 50 characters."
    ]


def test_numbers_are_positive_limited_and_rounded():
    assert clean_number("1,250.5") == Decimal("1250.5")
    assert clean_number("") is None
    assert clean_number("0", positive=False) == 0
    assert clean_number("1.23456", places=3) == Decimal("1.235")
    assert refusal(clean_number, "", required=True) == ["This field is required."]
    assert refusal(clean_number, "ten") == ["Enter a number."]
    assert refusal(clean_number, "0") == ["Enter a number greater than zero."]
    assert refusal(clean_number, "-1", positive=False) == ["Enter zero or a positive number."]
    assert refusal(clean_number, "11", maximum=Decimal(10)) == ["This number is too large."]
    assert refusal(clean_number, "0.00001", places=4) == ["Enter at least 0.0001."]


def test_whole_numbers_are_whole_and_in_range():
    assert clean_whole_number("12", low=0, high=20) == 12
    assert clean_whole_number(12.0, low=0, high=20) == 12
    assert clean_whole_number("", low=0, high=20) is None
    assert refusal(clean_whole_number, True, low=0, high=20) == ["Enter a whole number."]
    assert refusal(clean_whole_number, "1.5", low=0, high=20) == ["Enter a whole number."]
    assert refusal(clean_whole_number, None, low=0, high=20, required=True) == [
        "This field is required."
    ]
    assert refusal(clean_whole_number, 21, low=0, high=20) == ["Enter a number from 0 to 20."]
    assert refusal(
        clean_whole_number, 1700, low=1800, high=2000, range_message="Between %(low)d-%(high)d."
    ) == ["Between 1800-2000."]


def test_choices_and_codes():
    assert clean_choice(" kg ", allowed=["kg"]) == "kg"
    assert clean_choice("", allowed=["kg"]) == ""
    assert refusal(clean_choice, "", allowed=["kg"], required=True) == ["This field is required."]
    assert refusal(clean_choice, "lb", allowed=["kg"]) == ["Select a valid choice."]
    assert clean_currency("usd", required=True) == "USD"
    assert refusal(clean_currency, "XXQ", required=True) == [
        "Choose a currency by its ISO 4217 code, such as USD."
    ]
    assert clean_country("cn", required=False) == "CN"
    assert clean_country("", required=False) == ""
    assert clean_listing_language("ZH-HANS") == "zh-hans"
    assert refusal(clean_listing_language, "xx") == ["Choose a language from the list."]


def test_several_choices_keep_the_order_given_or_the_list_order():
    allowed = ["a", "b", "c"]
    assert clean_choices("c, a a", allowed=allowed, message="no") == ["c", "a"]
    assert clean_choices(["c", "a"], allowed=allowed, message="no", canonical_order=True) == [
        "a",
        "c",
    ]
    assert refusal(clean_choices, ["a", "zz"], allowed=allowed, message="%(value)s?") == ["zz?"]
    assert refusal(clean_choices, 5, allowed=allowed, message="no") == ["Enter a list of values."]


def test_flags_and_certifications():
    assert clean_flag("on") is True and clean_flag("no") is False and clean_flag(1) is True
    assert clean_certifications("ISO 9001, iso 9001；CE", max_count=5, max_length=20) == [
        "ISO 9001",
        "CE",
    ]
    assert refusal(clean_certifications, "a<b", max_count=5, max_length=20) == [
        "A certification name is not valid."
    ]
    assert refusal(clean_certifications, "a,b,c", max_count=2, max_length=20) == [
        "List at most 2 certifications."
    ]


def test_field_errors_gather_every_refusal_then_raise_once():
    errors = FieldErrors()
    assert errors.clean("title", clean_text, "ok", max_length=5) == "ok"
    assert errors.clean("title", clean_text, "too long", max_length=5) is None
    errors.add("other", "Bad.")
    with pytest.raises(ProductError) as caught:
        errors.raise_if_any(ProductError, ProductErrorCode.INVALID)
    assert caught.value.message_dict == {
        "title": ["Use at most 5 characters."],
        "other": ["Bad."],
    }
    FieldErrors().raise_if_any(
        ProductError, ProductErrorCode.INVALID
    )  # nothing gathered: no refusal


def test_lead_times_are_whole_days_up_to_ten_years():
    assert clean_lead_time_days("30") == 30
    assert clean_lead_time_days("") is None
    assert refusal(clean_lead_time_days, "", required=True) == ["This field is required."]
    assert refusal(clean_lead_time_days, "3651") == ["Enter a lead time between 0 and 3650 days."]
    assert refusal(clean_lead_time_days, "1e999999") == [
        "Enter a lead time between 0 and 3650 days."
    ]
