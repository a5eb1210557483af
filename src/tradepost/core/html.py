"""Sanitising of rich text written by users (company and product descriptions)."""

from __future__ import annotations

import html
import re

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


#: Tags that end a line of text (paragraphs, line breaks, list items, headings, table rows).
_LINE_ENDS = re.compile(r"(?i)<br\s*/?>|</(?:p|li|h[1-6]|tr|blockquote)\s*>|<hr\s*/?>")


def html_to_paragraphs(value: str) -> str:
    """Plain text of sanitised HTML that keeps its lines: one line per paragraph, line
    break, list item, heading or table row (what machine translation reads, line by line)."""
    if not value:
        return ""
    marked = _LINE_ENDS.sub("\n", value)
    text = html.unescape(nh3.clean(marked, tags=set()))
    lines = (" ".join(line.split()) for line in text.splitlines())
    return "\n".join(line for line in lines if line)
