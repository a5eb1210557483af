"""Sanitising of rich text written by users (company and product descriptions)."""

from __future__ import annotations

import nh3

ALLOWED_TAGS = {
    "p", "br", "strong", "b", "em", "i", "u", "ul", "ol", "li", "h2", "h3", "h4",
    "table", "thead", "tbody", "tr", "th", "td", "blockquote", "a", "span", "sub", "sup", "hr",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "td": {"colspan", "rowspan"}, "th": {"colspan"}}


def sanitize_html(value: str) -> str:
    """Return HTML that keeps basic formatting and drops scripts, styles and event handlers."""
    if not value:
        return ""
    return nh3.clean(
        value,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="nofollow noopener noreferrer",
    ).strip()


def html_to_text(value: str) -> str:
    """Plain text of sanitised HTML, for meta descriptions and search."""
    return " ".join(nh3.clean(value or "", tags=set()).split())
