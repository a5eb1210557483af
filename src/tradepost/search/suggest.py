"""Search suggestions: completions of what a visitor is typing, from the index's term dictionary."""

from __future__ import annotations

from functools import cache
from typing import Any

import opencc

from tradepost.core.languages import (
    normalise_ui_language,
)
from tradepost.search.analysis import normalize
from tradepost.search.filters import clean_query
from tradepost.search.highlight import is_cjk_token
from tradepost.search.index import (
    searcher,
)
from tradepost.search.querying import (
    term,
)

#: Candidates read from the term dictionary per suggestion shown (some may belong only to
#: listings removed since the last merge, and are skipped).
SUGGEST_CANDIDATES = 3


@cache
def _s2t() -> Any:
    return opencc.OpenCC("s2t")


def suggest(prefix: str, language: str, *, limit: int = 8) -> list[str]:
    """Completions of `prefix` from product titles, category names and company names, in
    the normalised (lower-case, simplified) form the index holds; written in traditional
    characters for zh-hant viewers. Either script of a prefix finds both."""
    language = normalise_ui_language(language)
    key = normalize(clean_query(prefix)[:200])
    if not key or (len(key) < 2 and not is_cjk_token(key[0])):
        return []
    limit = min(max(int(limit), 1), 20)
    s = searcher()
    # The term dictionary holds every normalised title, category and company name once,
    # with the number of documents carrying it: the most common completions come first.
    candidates = s.terms_with_prefix("suggest", key, limit=limit * SUGGEST_CANDIDATES)
    ordered = sorted(candidates, key=lambda item: (-item[1], len(item[0]), item[0]))
    suggestions = []
    for value, _count in ordered:
        # Counts include documents deleted but not yet merged away: keep live ones only.
        if s.search(term("suggest", value), 1, False).hits:
            suggestions.append(value)
            if len(suggestions) == limit:
                break
    if language == "zh-hant":
        suggestions = [
            _s2t().convert(s) if any(is_cjk_token(c) for c in s) else s for s in suggestions
        ]
    return suggestions
