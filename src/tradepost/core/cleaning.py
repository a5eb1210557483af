"""Turning what a form or an API client sent into clean values, for the write services.

Each helper says what it accepts. The field cleaners below are the one kit every service
uses (products, buying requests and quotations, company profiles): the same rules and the
same messages, in the user's language, field by field.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Container
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any, TypeVar

from django.utils.functional import lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from tradepost.core.countries import is_country
from tradepost.core.currencies import is_currency
from tradepost.core.errors import DomainError, ErrorCode
from tradepost.core.html import sanitize_html
from tradepost.core.languages import LISTING_LANGUAGE_CODES

if TYPE_CHECKING:
    from django.utils.functional import _StrPromise

_WHITESPACE = re.compile(r"\s+")


# --- text no database stores -----------------------------------------------------------------
#
# The one rule, for every entry point (the middleware in front of every request body, the
# services, the catalogue import, the search analysis): a NUL character is refused by
# PostgreSQL (in text and in JSON) and stored by SQLite; a lone surrogate (U+D800 to U+DFFF
# not in a pair: a JSON string may hold one, "\ud800") cannot be encoded in UTF-8 at all.
# Either fails deep inside a write, or is stored on one database and refused on the other.
# Valid characters outside the Basic Multilingual Plane (an emoji) are one code point in a
# `str`, never a surrogate pair, and pass.

#: A NUL or a lone surrogate: the characters `unstorable` finds and `storable` removes.
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_NUL = "\x00"

#: What a refused field says (`refuse_unstorable`, and the middleware's 422).
UNSTORABLE_MESSAGE = gettext_lazy(
    "Contains a character that cannot be stored (a NUL or an unpaired surrogate)."
)


def unstorable(text: str) -> bool:
    """Whether `text` holds a character no database stores: a NUL or a lone surrogate.

    Runs on every string of every request body (the middleware), so it takes the quick ways
    the rule allows, each several times quicker than scanning with `UNSTORABLE`: a search for
    NUL, then ASCII (no surrogate) or encoding to UTF-8, which fails at a lone surrogate and
    at nothing else."""
    if _NUL in text:
        return True
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def storable(text: str, *, nul: str = "", surrogate: str = "\ufffd") -> str:
    """`text` fit to store: each NUL replaced by `nul` (by default dropped), each lone
    surrogate by `surrogate` (by default U+FFFD, what a UTF-8 decoder writes for bytes it
    cannot read). Text without either is returned as is."""
    if not unstorable(text):
        return text
    return UNSTORABLE.sub(lambda match: nul if match.group() == _NUL else surrogate, text)


def refuse_unstorable(text: str) -> str:
    """`text` itself, or `FieldInvalid` (`UNSTORABLE_MESSAGE`) when it holds a NUL or a lone
    surrogate: for the fields that refuse such text rather than clean it."""
    if unstorable(text):
        raise FieldInvalid(UNSTORABLE_MESSAGE)
    return text


def text_or_none(value: Any) -> str | None:
    """The value as a stripped string without NUL characters (lone surrogates are kept: a
    service refuses them with `refuse_unstorable`); "" for None; None when it is not text at
    all (a number, a list: the caller reports a wrong type)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        return None
    return value.replace(_NUL, "").strip()


def one_line(value: str) -> str:
    """Runs of white space (line breaks and tabs included) as single spaces."""
    return _WHITESPACE.sub(" ", value).strip()


#: The longest name of an uploaded file kept (`clean_file_name`).
FILE_NAME_MAX_LENGTH = 200


def clean_file_name(value: Any, *, default: str = "document") -> str:
    """The name a file was sent as, fit to show and to store: its last path part, `storable`
    (lone surrogates replaced by "?"), control characters (NUL included) dropped, on one
    line, at most `FILE_NAME_MAX_LENGTH` characters (the end, with the extension, kept)."""
    name = str(value or "").replace("\\", "/").rsplit("/", 1)[-1]
    name = storable(name, surrogate="?")
    name = one_line("".join(char for char in name if char.isprintable() or char == " "))
    return name[-FILE_NAME_MAX_LENGTH:] or default


def decimal_or_none(value: Any) -> Decimal | None:
    """A finite number from a string ("1,250.5"), an int or a float; None when empty.
    Raises ValueError for anything else (booleans, NaN, infinity, words)."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(value)
        value = repr(value)
    try:
        number = Decimal(str(value).strip().replace(",", ""))
    except (InvalidOperation, ValueError):
        raise ValueError(value) from None
    if not number.is_finite():
        raise ValueError(value)
    return number


# --- field cleaners --------------------------------------------------------------------------
#
# One set for every write service: each takes the raw value (from a form or a JSON body),
# returns the value to store, and raises `FieldInvalid` with the message for the field. A
# service gathers the messages of all its fields in a `FieldErrors` and raises its app's
# `DomainError` once, so nothing is half saved.

_T = TypeVar("_T")
_CERTIFICATION_SEPARATORS = re.compile(r"[,，、;；\n\r]+")
_CHOICE_SEPARATORS = re.compile(r"[\s,]+")


class FieldInvalid(Exception):
    """A value refused; `messages` say why, in the user's language."""

    def __init__(self, message: Any, *more: Any) -> None:
        self.messages = [str(text) for text in (message, *more)]
        super().__init__(*self.messages)


class FieldErrors:
    """The messages per field gathered while the input of one use case is cleaned."""

    def __init__(self) -> None:
        self.by_field: dict[str, list[str]] = {}

    def add(self, field: str, message: str) -> None:
        self.by_field.setdefault(field, []).append(str(message))

    def clean(
        self, field: str, cleaner: Callable[..., _T], value: Any, **options: Any
    ) -> _T | None:
        """`cleaner(value, **options)`, or None with its message noted against `field`."""
        try:
            return cleaner(value, **options)
        except FieldInvalid as refusal:
            for message in refusal.messages:
                self.add(field, message)
            return None

    def raise_if_any(self, error: type[DomainError], code: ErrorCode) -> None:
        """Raise `error(code, messages per field)` when any field was refused."""
        if self.by_field:
            raise error(code, self.by_field)


def too_long(limit: int) -> str:
    return ngettext(
        "Use at most %(limit)d character.", "Use at most %(limit)d characters.", limit
    ) % {"limit": limit}


def clean_text(
    value: Any,
    *,
    max_length: int,
    required: bool = False,
    single_line: bool = True,
    markup_free: bool = False,
) -> str:
    """Stripped text (on one line unless `single_line` is false) of at most `max_length`
    characters; `markup_free` refuses angle brackets."""
    text = text_or_none(value)
    if text is None:
        raise FieldInvalid(_("Enter text."))
    if single_line:
        text = one_line(text)
    if markup_free and ("<" in text or ">" in text):
        raise FieldInvalid(_("Angle brackets are not allowed here."))
    if required and not text:
        raise FieldInvalid(_("This field is required."))
    if len(text) > max_length:
        raise FieldInvalid(too_long(max_length))
    return text


def clean_rich_text(value: Any, *, max_length: int, max_input_length: int) -> str:
    """HTML sanitised for display, at most `max_length` characters once sanitised; an input
    longer than `max_input_length` is refused before it is parsed."""
    text = text_or_none(value)
    if text is None:
        raise FieldInvalid(_("Enter text."))
    if len(text) > max_input_length:
        raise FieldInvalid(too_long(max_length))
    clean = sanitize_html(text).replace(_NUL, "")
    if len(clean) > max_length:
        raise FieldInvalid(too_long(max_length))
    return clean


def clean_number(
    value: Any,
    *,
    required: bool = False,
    positive: bool = True,
    maximum: Decimal | None = None,
    places: int | None = None,
) -> Decimal | None:
    """A decimal number (None when empty and not `required`): above zero when `positive`,
    else zero or more; at most `maximum`; rounded to `places` decimal places."""
    try:
        number = decimal_or_none(value)
    except ValueError:
        raise FieldInvalid(_("Enter a number.")) from None
    if number is None:
        if required:
            raise FieldInvalid(_("This field is required."))
        return None
    if positive and number <= 0:
        raise FieldInvalid(_("Enter a number greater than zero."))
    if number < 0:
        raise FieldInvalid(_("Enter zero or a positive number."))
    if maximum is not None and number > maximum:
        raise FieldInvalid(_("This number is too large."))
    if places is None:
        return number
    smallest = Decimal(1).scaleb(-places)
    rounded = number.quantize(smallest)
    if positive and rounded <= 0:  # 0.00001 is above zero but stored as 0.0000
        raise FieldInvalid(_("Enter at least %(smallest)s.") % {"smallest": smallest})
    return rounded


def clean_whole_number(
    value: Any, *, low: int, high: int, required: bool = False, range_message: str | None = None
) -> int | None:
    """A whole number from `low` to `high` (None when empty and not `required`);
    `range_message` (which may name `%(low)d` and `%(high)d`) says the range in the field's
    terms."""
    if isinstance(value, bool):
        raise FieldInvalid(_("Enter a whole number."))
    try:
        number = decimal_or_none(value)
    except ValueError:
        raise FieldInvalid(_("Enter a whole number.")) from None
    if number is None:
        if required:
            raise FieldInvalid(_("This field is required."))
        return None
    if number != number.to_integral_value():
        raise FieldInvalid(_("Enter a whole number."))
    if not low <= number <= high:
        message = range_message or _("Enter a number from %(low)d to %(high)d.")
        raise FieldInvalid(message % {"low": low, "high": high})
    return int(number)


#: The longest lead time a listing or a quotation may state, in days (ten years).
LEAD_TIME_MAX_DAYS = 3650


def _lead_time_range() -> str:
    return _("Enter a lead time between 0 and %(limit)d days.") % {"limit": LEAD_TIME_MAX_DAYS}


# The cleaners' messages are translated only when a value is refused: a catalogue import
# cleans a few hundred thousand values, nearly all good (lazy, in the language of the moment).
_LEAD_TIME_RANGE = lazy(_lead_time_range, str)()
_CHOOSE_CURRENCY = gettext_lazy("Choose a currency by its ISO 4217 code, such as USD.")
_CHOOSE_COUNTRY = gettext_lazy("Choose a country by its ISO 3166 code, such as CN.")
_CHOOSE_LANGUAGE = gettext_lazy("Choose a language from the list.")


def clean_lead_time_days(value: Any, *, required: bool = False) -> int | None:
    """Days from order to shipment, from 0 to `LEAD_TIME_MAX_DAYS` (None when empty and not
    `required`)."""
    return clean_whole_number(
        value, low=0, high=LEAD_TIME_MAX_DAYS, required=required, range_message=_LEAD_TIME_RANGE
    )


def clean_choice(
    value: Any,
    *,
    allowed: Container[str],
    required: bool = False,
    message: str | _StrPromise | None = None,
    case: Callable[[str], str] | None = None,
) -> str:
    """One of `allowed` ("" when empty and not `required`), after `case` (`str.upper`,
    `str.lower`); `message` says what to choose."""
    text = text_or_none(value)
    if text is None:
        raise FieldInvalid(message or _("Select a valid choice."))
    if case is not None:
        text = case(text)
    if not text:
        if required:
            raise FieldInvalid(_("This field is required."))
        return ""
    if text not in allowed:
        raise FieldInvalid(message or _("Select a valid choice."))
    return text


def clean_currency(value: Any, *, required: bool) -> str:
    """An ISO 4217 currency code in capitals."""
    return clean_choice(
        value,
        allowed=_Known(is_currency),
        required=required,
        message=_CHOOSE_CURRENCY,
        case=str.upper,
    )


def clean_country(value: Any, *, required: bool) -> str:
    """An ISO 3166 country code in capitals."""
    return clean_choice(
        value,
        allowed=_Known(is_country),
        required=required,
        message=_CHOOSE_COUNTRY,
        case=str.upper,
    )


def clean_listing_language(value: Any) -> str:
    """The language a listing is written in, one of `LISTING_LANGUAGE_CODES`."""
    return clean_choice(
        value,
        allowed=LISTING_LANGUAGE_CODES,
        required=True,
        message=_CHOOSE_LANGUAGE,
        case=str.lower,
    )


class _Known:
    """The codes a test accepts (currencies, countries), as a container."""

    def __init__(self, test: Callable[[str], bool]) -> None:
        self._test = test

    def __contains__(self, code: object) -> bool:
        return isinstance(code, str) and self._test(code)


def clean_choices(
    value: Any, *, allowed: Collection[str], message: str, canonical_order: bool = False
) -> list[str]:
    """Several of `allowed`, from a list or a string separated by commas or spaces, each once:
    in the order given, or in `allowed`'s order with `canonical_order`. `message` may name the
    refused value as `%(value)s`."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        value = [part for part in _CHOICE_SEPARATORS.split(value) if part]
    if not isinstance(value, list | tuple):
        raise FieldInvalid(_("Enter a list of values."))
    chosen: list[str] = []
    for item in value:
        if not isinstance(item, str) or item.strip() not in allowed:
            raise FieldInvalid(message % {"value": str(item)[:40]})
        code = item.strip()
        if code not in chosen:
            chosen.append(code)
    if canonical_order:
        return [code for code in allowed if code in chosen]
    return chosen


def clean_flag(value: Any) -> bool:
    """A checkbox or a JSON boolean: "1", "true", "on" and "yes" are true."""
    if isinstance(value, str):
        return value.strip().lower() in {"1", "true", "on", "yes"}
    return bool(value)


def clean_certifications(value: Any, *, max_count: int, max_length: int) -> list[str]:
    """Short certification names from a list or a string separated by commas (Latin and CJK),
    semicolons or new lines; each once (ignoring case), without angle brackets."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        items = _CERTIFICATION_SEPARATORS.split(value)
    elif isinstance(value, list | tuple):
        items = list(value)
    else:
        raise FieldInvalid(_("Enter certifications separated by commas."))
    names: list[str] = []
    seen: set[str] = set()
    for item in items:
        text = text_or_none(item)
        if text is None:
            raise FieldInvalid(_("Enter certifications separated by commas."))
        name = one_line(text)
        if not name:
            continue
        if len(name) > max_length:
            raise FieldInvalid(
                _("Each certification has at most %(max)d characters: “%(name)s…”.")
                % {"max": max_length, "name": name[:20]}
            )
        if "<" in name or ">" in name:
            raise FieldInvalid(_("A certification name is not valid."))
        if name.casefold() not in seen:
            seen.add(name.casefold())
            names.append(name)
    if len(names) > max_count:
        raise FieldInvalid(_("List at most %(max)d certifications.") % {"max": max_count})
    return names
