"""Reads of the screening app: the list of banned terms (operators only), and screening
texts against its active terms.

`access_banned_term` is the only way to fetch a term by id on a user's behalf: operators get
it; anybody else gets the same 404 as for an id that names nothing.

`screen` matches texts against the active terms with one `TermMatcher` per language, built
once per process and list version: the version is read from the database (the number of
terms, the highest id and the last change) on each screening, so a change made through any
process is seen by every other one at its next screening.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Max, Q, QuerySet

from tradepost.accounts.selectors import is_operator
from tradepost.core.ids import parse_id
from tradepost.screening.errors import BannedTermNotFound
from tradepost.screening.matching import TermMatcher
from tradepost.screening.models import ANY_LANGUAGE, BannedTerm

#: Characters of context shown on each side of a match in the review queue.
CONTEXT_CHARS = 60


def access_banned_term(*, user: Any, banned_term_id: Any) -> BannedTerm:
    """The term `banned_term_id` for an operator; else `BannedTermNotFound`."""
    pk = parse_id(banned_term_id)
    term = BannedTerm.objects.filter(pk=pk).first() if pk is not None else None
    if term is None or not is_operator(user):
        raise BannedTermNotFound()
    return term


def banned_terms(
    *, query: str = "", language: str = "", active: bool | None = None
) -> QuerySet[BannedTerm]:
    """The list, alphabetically by folded form; `query` finds a term, its folded form or its
    note; `language` ("any" or a listing language) and `active` narrow it."""
    terms = BannedTerm.objects.select_related("created_by").order_by("normalized", "id")
    query = (query or "").strip()[:100]
    if query:
        terms = terms.filter(
            Q(term__icontains=query) | Q(normalized__icontains=query) | Q(note__icontains=query)
        )
    if language:
        terms = terms.filter(language=language)
    if active is not None:
        terms = terms.filter(active=active)
    return terms


def banned_term_counts() -> dict[str, int]:
    """How many terms the list holds, and how many of them are active."""
    counts = BannedTerm.objects.aggregate(
        total=Count("id"), active=Count("id", filter=Q(active=True))
    )
    return {"total": counts["total"] or 0, "active": counts["active"] or 0}


# --- screening -------------------------------------------------------------------------------


def language_group(language: str) -> str:
    """The language a term of `language` screens: Traditional Chinese is Chinese too."""
    return "zh-hans" if language == "zh-hant" else language


@dataclass(frozen=True)
class ScreenedText:
    """One text of what is screened: a part's name (the caller's: "title", "description"...),
    the language it is written in (a listing language code), and the plain text."""

    part: str
    language: str
    text: str


@dataclass(frozen=True)
class Hit:
    """A banned term found in one of the texts: which text (its index in what was screened),
    where in it, and the terms it matches."""

    text_index: int
    start: int
    end: int
    terms: tuple[BannedTerm, ...]


@dataclass(frozen=True)
class Verdict:
    """What screening found: nothing (the texts may be published) or hits (held for
    review)."""

    texts: tuple[ScreenedText, ...]
    hits: tuple[Hit, ...] = ()

    @property
    def held(self) -> bool:
        return bool(self.hits)

    @property
    def terms(self) -> list[BannedTerm]:
        """The terms found, each once, in the order they were found."""
        seen: dict[int, BannedTerm] = {}
        for hit in self.hits:
            for term in hit.terms:
                seen.setdefault(term.pk, term)
        return list(seen.values())


@dataclass
class _Loaded:
    version: tuple[Any, ...]
    terms: dict[int, BannedTerm]
    matchers: dict[str, TermMatcher] = field(default_factory=dict)


_loaded: _Loaded | None = None
_lock = threading.Lock()


def _version() -> tuple[Any, ...]:
    stamp = BannedTerm.objects.aggregate(n=Count("id"), top=Max("id"), last=Max("updated_at"))
    return stamp["n"], stamp["top"], stamp["last"]


def _current() -> _Loaded:
    """The active terms as of the list's current version (loaded again when it changed)."""
    global _loaded
    version = _version()
    loaded = _loaded
    if loaded is not None and loaded.version == version:
        return loaded
    active = BannedTerm.objects.filter(active=True).only("id", "term", "normalized", "language")
    loaded = _Loaded(version, {term.pk: term for term in active})
    with _lock:
        _loaded = loaded
    return loaded


def forget_matchers() -> None:
    """Drop this process's compiled list (tests; the version check makes it needless)."""
    global _loaded
    with _lock:
        _loaded = None


def _matcher(loaded: _Loaded, language: str) -> TermMatcher:
    group = language_group(language)
    matcher = loaded.matchers.get(group)
    if matcher is None:
        matcher = TermMatcher(
            (term.pk, term.normalized)
            for term in loaded.terms.values()
            if term.language == ANY_LANGUAGE or language_group(term.language) == group
        )
        with _lock:
            loaded.matchers[group] = matcher
    return matcher


def screen(texts: Iterable[ScreenedText]) -> Verdict:
    """The active banned terms in `texts`, each text screened with the terms of its language
    and those of any language."""
    return _screen(tuple(texts), _current())


def screen_each(groups: Iterable[Iterable[ScreenedText]]) -> list[Verdict]:
    """`screen` of each group of texts (a page of listings), the list's version read once."""
    loaded = _current()
    return [_screen(tuple(texts), loaded) for texts in groups]


def _screen(screened: tuple[ScreenedText, ...], loaded: _Loaded) -> Verdict:
    if not loaded.terms:
        return Verdict(screened)
    hits = []
    for index, item in enumerate(screened):
        matcher = _matcher(loaded, item.language)
        for match in matcher.find(item.text):
            terms = tuple(loaded.terms[pk] for pk in match.term_ids if pk in loaded.terms)
            hits.append(Hit(index, match.start, match.end, terms))
    return Verdict(screened, tuple(hits))


# --- showing hits ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Excerpt:
    """A piece of a text around one or more hits: (text, is a match) parts in order, and
    whether text was left out before and after."""

    parts: tuple[tuple[str, bool], ...]
    cut_before: bool
    cut_after: bool


def excerpts(
    text: str, spans: Sequence[tuple[int, int]], *, context: int = CONTEXT_CHARS
) -> list[Excerpt]:
    """The parts of `text` around the `spans` (sorted, not overlapping), `context` characters
    on each side; hits close together share one excerpt."""
    windows: list[list[tuple[int, int]]] = []
    for start, end in sorted(spans):
        if windows and start - windows[-1][-1][1] <= 2 * context:
            windows[-1].append((start, end))
        else:
            windows.append([(start, end)])
    found = []
    for window in windows:
        begin = max(0, window[0][0] - context)
        finish = min(len(text), window[-1][1] + context)
        parts: list[tuple[str, bool]] = []
        position = begin
        for start, end in window:
            if start > position:
                parts.append((text[position:start], False))
            parts.append((text[max(start, position) : end], True))
            position = max(position, end)
        if finish > position:
            parts.append((text[position:finish], False))
        found.append(Excerpt(tuple(parts), begin > 0, finish < len(text)))
    return found
