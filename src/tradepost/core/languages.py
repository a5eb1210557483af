"""Interface languages and the languages a listing may be written in."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

UI_LANGUAGES = ("en", "zh-hans", "zh-hant")

# Languages a listing's original text may be written in.
LISTING_LANGUAGES: list[tuple[str, object]] = [
    ("en", _("English")),
    ("zh-hans", _("Simplified Chinese")),
    ("zh-hant", _("Traditional Chinese")),
    ("es", _("Spanish")),
    ("vi", _("Vietnamese")),
    ("tr", _("Turkish")),
    ("de", _("German")),
    ("fr", _("French")),
    ("pt", _("Portuguese")),
    ("ru", _("Russian")),
    ("ar", _("Arabic")),
    ("ja", _("Japanese")),
    ("ko", _("Korean")),
    ("id", _("Indonesian")),
    ("th", _("Thai")),
    ("hi", _("Hindi")),
]
LISTING_LANGUAGE_CODES = frozenset(code for code, _label in LISTING_LANGUAGES)

_BABEL = {"en": "en", "zh-hans": "zh_Hans", "zh-hant": "zh_Hant"}


def babel_locale(language: str) -> str:
    return _BABEL.get((language or "en").lower(), "en")


# English dates are written for readers everywhere: CLDR's world English says "17 Dec 2026",
# where US English says "Dec 17, 2026" or "12/17/2026" (read as 12 July in most countries).
_BABEL_DATES = {**_BABEL, "en": "en_001"}


def babel_date_locale(language: str) -> str:
    """The Babel locale dates are written in for a reader of `language`."""
    return _BABEL_DATES.get((language or "en").lower(), "en_001")


def normalise_ui_language(language: str | None) -> str:
    language = (language or "en").lower()
    return language if language in UI_LANGUAGES else "en"
