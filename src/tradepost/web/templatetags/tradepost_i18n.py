"""Template tags for multilingual pages: hreflang alternates and the canonical URL."""

from __future__ import annotations

from django import template
from django.conf import settings
from django.urls import translate_url

register = template.Library()

HREFLANG = {"en": "en", "zh-hans": "zh-Hans", "zh-hant": "zh-Hant"}


@register.simple_tag(takes_context=True)
def alternate_links(context) -> list[dict[str, str]]:
    request = context.get("request")
    if request is None:
        return []
    path = request.path
    links = []
    for code, _name in settings.LANGUAGES:
        links.append(
            {"hreflang": HREFLANG[code], "href": settings.SITE_URL + translate_url(path, code)}
        )
    links.append({"hreflang": "x-default", "href": settings.SITE_URL + translate_url(path, "en")})
    return links


@register.simple_tag(takes_context=True)
def canonical_link(context) -> str:
    request = context.get("request")
    return settings.SITE_URL + (request.path if request is not None else "/")
