"""Template tags for multilingual pages: hreflang alternates, the canonical URL, the language
of a glossary term shown as it is and in the reader's Chinese script, and a moment (a date
with its time) in the viewer's language.

The x-default alternate is the URL without a language prefix: it redirects each visitor to
their language. Both keep a `page` number above 1 (each page of a list is its own document)
and drop every other query parameter (sorts and filters are not separate documents).
"""

from __future__ import annotations

import re
from datetime import datetime
from urllib.parse import urlencode

from babel.dates import format_date, format_time, get_datetime_format
from django import template
from django.conf import settings
from django.http import HttpRequest
from django.urls import translate_url
from django.utils import timezone
from django.utils.translation import get_language

from tradepost.core.chinese_scripts import SIMPLIFIED, convert_script
from tradepost.core.languages import babel_date_locale, normalise_ui_language
from tradepost.web.pagination import page_number

register = template.Library()

HREFLANG = {"en": "en", "zh-hans": "zh-Hans", "zh-hant": "zh-Hant"}
HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@register.filter
def term_language(term: str) -> str:
    """The `lang` of a term of the bilingual glossary shown as it is (the search's "also
    searched" words): "en" without a Chinese character, "" (the page's) with one."""
    return "" if HAN.search(term or "") else "en"


@register.filter
def in_reader_script(term: str) -> str:
    """A glossary term (kept in Simplified Chinese, the search's normal form) in the page's
    script: converted to Traditional on zh-Hant pages, as it is elsewhere."""
    language = normalise_ui_language(get_language())
    return convert_script(term or "", written_in=SIMPLIFIED, reader=language)


def format_moment(value: datetime, language: str) -> str:
    """A moment in the site's time zone, in `language`: its day as the `day` filter writes it
    and its time to the minute, joined as the language joins them ("17 Dec 2026, 2:05 pm",
    "2026年12月17日 14:05")."""
    if timezone.is_aware(value):
        value = timezone.localtime(value)
    locale = babel_date_locale(language)
    day = format_date(value.date(), "medium", locale=locale)
    time = format_time(value.time(), "short", locale=locale)
    pattern = str(get_datetime_format("medium", locale=locale))  # "{1}, {0}": day, time
    return pattern.replace("{1}", day).replace("{0}", time)


@register.filter
def moment(value: datetime | None) -> str:
    """A date with its time (a message sent, a token last used) in the viewer's language; a
    date alone goes through `day` (tradepost_catalog)."""
    if not value:
        return ""
    return format_moment(value, normalise_ui_language(get_language()))


def _page_suffix(request: HttpRequest, keyword: str = "") -> str:
    """What the canonical and alternate addresses keep of the query string: the page
    number, or the words of a keyword page (a search indexed by its words alone)."""
    if keyword:
        return "?" + urlencode({"q": keyword})
    page = page_number(request)  # the page shown (web.pagination)
    return f"?page={page}" if page > 1 else ""


@register.simple_tag(takes_context=True)
def alternate_links(context) -> list[dict[str, str]]:
    request = context.get("request")
    if request is None:
        return []
    path = request.path
    suffix = _page_suffix(request, context.get("keyword_page", ""))
    links = []
    for code, _name in settings.LANGUAGES:
        links.append(
            {
                "hreflang": HREFLANG[code],
                "href": settings.SITE_URL + translate_url(path, code) + suffix,
            }
        )
    # x-default is the unprefixed URL, which redirects by the visitor's Accept-Language
    # (the sitemap writes the same one).
    default = translate_url(path, settings.LANGUAGE_CODE)
    default = default.replace(f"/{settings.LANGUAGE_CODE}/", "/", 1)
    links.append({"hreflang": "x-default", "href": settings.SITE_URL + default + suffix})
    return links


@register.simple_tag(takes_context=True)
def canonical_link(context) -> str:
    request = context.get("request")
    if request is None:
        return settings.SITE_URL + "/"
    return settings.SITE_URL + request.path + _page_suffix(request, context.get("keyword_page", ""))
