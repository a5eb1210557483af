"""Template tags for multilingual pages: hreflang alternates, the canonical URL, and the
language of a glossary term shown as it is.

The x-default alternate is the URL without a language prefix: it redirects each visitor to
their language. Both keep a `page` number above 1 (each page of a list is its own document)
and drop every other query parameter (sorts and filters are not separate documents).
"""

from __future__ import annotations

import re

from django import template
from django.conf import settings
from django.http import HttpRequest
from django.urls import translate_url

register = template.Library()

HREFLANG = {"en": "en", "zh-hans": "zh-Hans", "zh-hant": "zh-Hant"}
HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@register.filter
def term_language(term: str) -> str:
    """The `lang` of a term of the bilingual glossary shown as it is (the search's "also
    searched" words): "en" without a Chinese character, "" (the page's) with one."""
    return "" if HAN.search(term or "") else "en"


def _page_suffix(request: HttpRequest) -> str:
    page = request.GET.get("page", "")
    if page.isdigit() and 1 < int(page) < 10**9:
        return f"?page={int(page)}"
    return ""


@register.simple_tag(takes_context=True)
def alternate_links(context) -> list[dict[str, str]]:
    request = context.get("request")
    if request is None:
        return []
    path = request.path
    suffix = _page_suffix(request)
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
    return settings.SITE_URL + request.path + _page_suffix(request)
