"""Highlighting of matched words in a title, CJK-aware.

The index holds analysed tokens, not offsets into the original text, so highlighting is done
here on the text as written: Latin words are analysed one by one and marked when their token
is a query token ("Flasks" matches the query "flask"); Chinese runs are folded to simplified
character by character (so a traditional title lights up for a simplified query) and every
occurrence of a query word or bigram is marked.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import lru_cache
from html import escape

from django.utils.safestring import SafeString, mark_safe

from tradepost.search.analysis import analyze_words, normalize

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
_CJK_RUN_RE = re.compile(f"[{_CJK}]+")
_CJK_CHAR_RE = re.compile(f"[{_CJK}]")
# Letters/digits runs that are not CJK (the analyser's view of a Latin word, roughly); a
# number and a unit written apart ("500 ml") are one word, as the analyser makes them.
_LATIN = rf"(?:(?![{_CJK}])[^\W_])"
_WORD_RE = re.compile(rf"\d+(?:\.\d+)?\s[a-zA-Z]+\b|{_LATIN}+(?:\.\d+{_LATIN}*)*")
_MARKED_RE = re.compile(b"\x01+")


def is_cjk_token(token: str) -> bool:
    return bool(token) and all(_CJK_CHAR_RE.match(ch) for ch in token)


def _fold_run(run: str) -> str:
    """`run` folded to simplified Chinese, one character per character of `run`."""
    folded = normalize(run)
    if len(folded) == len(run):
        return folded
    chars = []
    for ch in run:
        one = normalize(ch)
        chars.append(one if len(one) == 1 else ch)
    return "".join(chars)


@lru_cache(maxsize=50_000)
def _word_tokens(word: str) -> tuple[str, frozenset[str]]:
    """The folded first letter of a title word and its analysed tokens (titles repeat the
    same words, so each is analysed once per process)."""
    return normalize(word[0])[:1], frozenset(analyze_words(word))


@lru_cache(maxsize=256)
def _split_terms(
    terms: frozenset[str],
) -> tuple[frozenset[str], list[str], frozenset[str]]:
    """The terms, the CJK ones longest first, and the initials of the others (computed once
    for the 20 titles of a page)."""
    cjk_terms = sorted((t for t in terms if is_cjk_token(t)), key=len, reverse=True)
    initials = frozenset(t[0] for t in terms if not is_cjk_token(t))
    return terms, cjk_terms, initials


def highlight_spans(text: str, terms: Collection[str]) -> list[tuple[int, int]]:
    """Sorted, merged (start, end) character spans of `text` that match `terms` (analysed
    query tokens: stemmed Latin words, CJK words and bigrams)."""
    if not text or not terms:
        return []
    marks = bytearray(len(text))
    term_set, cjk_terms, initials = _split_terms(frozenset(terms))
    if initials:
        # A word's token starts with its first letter folded (stems, spelling variants and
        # units all keep it), so only words starting like a query token are looked at.
        for match in _WORD_RE.finditer(text):
            initial, tokens = _word_tokens(match.group())
            if initial in initials and not tokens.isdisjoint(term_set):
                marks[match.start() : match.end()] = b"\x01" * (match.end() - match.start())
    if cjk_terms:
        for run_match in _CJK_RUN_RE.finditer(text):
            folded = _fold_run(run_match.group())
            base = run_match.start()
            for term in cjk_terms:
                start = folded.find(term)
                while start != -1:
                    marks[base + start : base + start + len(term)] = b"\x01" * len(term)
                    start = folded.find(term, start + 1)
    return [match.span() for match in _MARKED_RE.finditer(marks)]


def highlight_html(text: str, terms: Collection[str]) -> SafeString:
    """`text`, HTML-escaped, with matches wrapped in <mark>. (The standard library's
    `html.escape`, as Django's `escape` uses, without its lazy-string wrapper: 20 titles a
    page.)"""
    parts: list[str] = []
    last = 0
    for start, end in highlight_spans(text, terms):
        parts.append(escape(text[last:start]))
        parts.append(f"<mark>{escape(text[start:end])}</mark>")
        last = end
    parts.append(escape(text[last:]))
    return mark_safe("".join(parts))


def matched_original(
    shown: str, original: str, terms: Collection[str], *, machine: bool
) -> SafeString | None:
    """The original title, highlighted, when the title shown is a machine translation
    (`machine`) and the query matched only the original's words (so the reader sees why
    the result was found); None otherwise."""
    if not machine or not terms:
        return None
    if highlight_spans(shown, terms) or not highlight_spans(original, terms):
        return None
    return highlight_html(original, terms)
