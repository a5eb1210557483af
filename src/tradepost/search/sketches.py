"""The clear-match rule of trade alerts on token sets, for percolation at scale (ADR 0037).

`search.alerting` states the rule on the index (a saved search's units, each a disjunction
of ways, weighed by specificity; or half the query's Chinese characters in the title). Run
that way, each (alert, document) pair costs a few index searches; a new listing is a
candidate for thousands of saved searches. Here the same rule is decided in Python on the
document's own tokens (the ones the indexer writes in the fields where a document says what
it is), from a **sketch** of the saved search made once when it is saved:

    {"v": 1, "u": [[unit, [way, ...]], ...], "c": [character, ...]}

where a way is `["t", token, bigrams, needed]` (the token in a word field, or `needed` of
its bigrams in the title's grams, as `querying.token_clause` matches it) or `["x", [way,
...]]` (a translation: every one of its tokens, as `querying.translation_clause`). A unit's
weight needs the index (how many documents hold it: `unit_query`); the percolator keeps it
per unit for an hour.

`registry_keys` are the keys a document must hold one of to have a chance (by pigeonhole:
a Chinese word matched by `needed` of its `n` bigrams holds one of any `n - needed + 1` of
them; a title with half of the query's `n` characters holds two of any `n - ceil(n/2) + 2`
of them, so pairs of characters are keys); `DocumentTokens.keys` are a document's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from tantivy import Occur, Query

from tradepost.search.analysis import analyze_query
from tradepost.search.filters import clean_query
from tradepost.search.highlight import is_cjk_token
from tradepost.search.index import Snapshot
from tradepost.search.querying import (
    all_of,
    any_of,
    grams_needed,
    minimum_units,
    query_units,
    term,
    token_clause,
    usable,
)

SKETCH_VERSION = 1

#: A document matches clearly when the units it matches carry this share of the query's
#: specificity...
CLEAR_SHARE = 0.3
#: ...or its title holds this share of the query's Chinese characters (three or more).
CHARACTERS_CLEAR = 0.5

#: Where each kind of document says what it is: its word fields (all; translations are
#: looked for in those weighing more than 1, as `querying.naming_fields` does) and its
#: title's gram field. Descriptions never make a match clear.
NAMING_WORD_FIELDS: dict[str, dict[str, float]] = {
    "product": {"title_words": 3.0, "extra_words": 1.5, "machine_words": 1.0},
    "request": {"title_words": 3.0, "extra_words": 1.5},
    "company": {"name_words": 3.0, "cproducts_words": 1.5},
}
NAMING_GRAM_FIELD = {"product": "title_grams", "request": "title_grams", "company": "name_grams"}


def _bigrams(token: str) -> list[str]:
    """As `querying._bigrams`: the token's distinct bigrams (a single character: itself)."""
    if len(token) < 2:
        return [token]
    return list(dict.fromkeys(token[i : i + 2] for i in range(len(token) - 1)))


def _token_way(token: str) -> list[Any]:
    if is_cjk_token(token):
        grams = _bigrams(token)
        return ["t", token, grams, grams_needed(len(grams))]
    return ["t", token, [], 0]


def sketch_of(query: str) -> dict[str, Any]:
    """The sketch of a saved search's words (the analysis and the lexicon; no index)."""
    from tradepost.search.engine import expand

    text = clean_query(query)
    analyzed = analyze_query(text)
    expansion = expand(text, analyzed)
    units = []
    for unit in query_units(analyzed.words):
        ways: list[Any] = [_token_way(unit)]
        for translation in expansion.translations.get(unit, ()):
            tokens = usable(translation.tokens)
            if tokens:
                ways.append(["x", [_token_way(token) for token in tokens]])
        units.append([unit, ways])
    characters = [g for g in usable(analyzed.grams) if len(g) == 1]
    return {
        "v": SKETCH_VERSION,
        "e": analyzed.is_empty,
        "u": units,
        "c": characters if len(characters) >= 3 else [],
    }


def is_wordless(sketch: Mapping[str, Any]) -> bool:
    """A search without words (filters only): every document of its kind within them. (A
    query of words the analysis cannot use, one 200-letter "word", matches nothing.)"""
    return sketch.get("e") is True


def _way_keys(way: list[Any]) -> list[str]:
    if way[0] == "x":
        # Every token of a translation must match: the keys of one of them are enough.
        longest = max(way[1], key=lambda sub: len(sub[1]))
        return _way_keys(longest)
    _kind, token, grams, needed = way
    keys = [f"w:{token}"]
    if grams:
        keys.extend(f"g:{gram}" for gram in grams[: len(grams) - needed + 1])
    return keys


def _pair(a: str, b: str) -> str:
    return f"p:{a}{b}" if a <= b else f"p:{b}{a}"


def key_units(weights: list[float]) -> list[int]:
    """The units whose keys a document must hold one of to match by units: all but the
    least specific ones that together weigh less than CLEAR_SHARE of the query (a
    document matching only those cannot match clearly by units). Without weights, all."""
    total = sum(weights)
    order = sorted(range(len(weights)), key=lambda position: weights[position])
    left_out = 0.0
    kept = []
    for position in order:
        if total > 0 and left_out + weights[position] < CLEAR_SHARE * total - 1e-9:
            left_out += weights[position]
            continue
        kept.append(position)
    return sorted(kept)


#: The bit of a key that stands for the characters' route (units take the bits below).
CHARACTERS_BIT = 1 << 62
#: Units of a query given a bit of their own (a longer query's later units share the last).
MAX_UNIT_BITS = 62


def unit_bit(position: int) -> int:
    return 1 << min(position, MAX_UNIT_BITS - 1)


def registry_keys(sketch: Mapping[str, Any], weights: list[float] | None = None) -> dict[str, int]:
    """The keys a document must hold one of to match this sketch clearly, each with the
    bits of what holding it may mean (a unit, by its position; CHARACTERS_BIT: a pair of the
    query's characters). Empty for a search without words (`is_wordless`: every document of
    its kind may match) and for one of words the analysis cannot use (none may). With the
    units' `weights`, the least specific units are left out (`key_units`): their words are
    the common ones."""
    keys: dict[str, int] = {}
    units = sketch.get("u", [])
    kept = key_units(weights) if weights is not None else range(len(units))
    for position in kept:
        for way in units[position][1]:
            for key in _way_keys(way):
                keys[key] = keys.get(key, 0) | unit_bit(position)
    characters = list(dict.fromkeys(sketch.get("c", [])))
    if characters:
        needed = math.ceil(CHARACTERS_CLEAR * len(characters))
        chosen = characters[: len(characters) - needed + 2]
        for a, b in combinations(chosen, 2):
            key = _pair(a, b)
            keys[key] = keys.get(key, 0) | CHARACTERS_BIT
    return keys


def keyed_bits(weights: list[float] | None, units: int) -> int:
    """The bits of the units `registry_keys` files keys for (with these weights)."""
    kept = key_units(weights) if weights is not None else range(units)
    bits = 0
    for position in kept:
        bits |= unit_bit(position)
    return bits


def may_be_clear(weights: list[float], bits: int, keyed: int) -> bool:
    """Whether a document holding keys with these `bits` can match clearly at all (cheap;
    `clear_by_tokens` decides): it holds a pair of the query's characters, or the units it
    may match weigh enough: those whose keys it holds, and those filed without keys
    (`keyed`: the bits of the units that have keys), which it may hold unseen."""
    if bits & CHARACTERS_BIT:
        return True
    total = sum(weights)
    if total <= 0:
        return False
    possible = sum(
        w
        for position, w in enumerate(weights)
        if bits & unit_bit(position) or not keyed & unit_bit(position)
    )
    return possible >= CLEAR_SHARE * total - 1e-9


@dataclass
class DocumentTokens:
    """A document's tokens where it says what it is: `words` (all its naming word fields),
    `translated` (those a translation is looked for in) and `grams` (its title's grams)."""

    words: set[str] = field(default_factory=set)
    translated: set[str] = field(default_factory=set)
    grams: set[str] = field(default_factory=set)

    @classmethod
    def from_fields(cls, kind: str, fields: Mapping[str, Any]) -> DocumentTokens:
        tokens = cls()
        for name, weight in NAMING_WORD_FIELDS[kind].items():
            found = _split(fields.get(name))
            tokens.words |= found
            if weight > 1.0:
                tokens.translated |= found
        tokens.grams = _split(fields.get(NAMING_GRAM_FIELD[kind]))
        return tokens

    def keys(self, with_pairs: bool = True) -> set[str]:
        keys = {f"w:{token}" for token in self.words}
        keys.update(f"g:{gram}" for gram in self.grams)
        if with_pairs:
            characters = sorted(g for g in self.grams if len(g) == 1 and is_cjk_token(g))
            keys.update(f"p:{a}{b}" for a, b in combinations(characters, 2))
        return keys


def _split(value: Any) -> set[str]:
    values: Iterable[Any] = value if isinstance(value, list | tuple) else [value]
    tokens: set[str] = set()
    for text in values:
        if isinstance(text, str):
            tokens.update(text.split())
    return tokens


def _way_holds(way: list[Any], words: set[str], grams: set[str]) -> bool:
    _kind, token, bigrams, needed = way
    if token in words:
        return True
    return bool(bigrams) and sum(1 for gram in bigrams if gram in grams) >= needed


def unit_holds(ways: list[Any], document: DocumentTokens) -> bool:
    for way in ways:
        if way[0] == "x":
            if all(_way_holds(sub, document.translated, document.grams) for sub in way[1]):
                return True
        elif _way_holds(way, document.words, document.grams):
            return True
    return False


def narrow_by_tokens(sketch: Mapping[str, Any], document: DocumentTokens) -> bool:
    """Whether the document holds, where it names itself, the share of the query's units
    the results page requires of a candidate at its narrowest (`querying.minimum_units`):
    such a document is among the page's results (the page's units are looked for in more
    fields than these, and the page only ever widens)."""
    units = sketch.get("u", [])
    if not units:
        return is_wordless(sketch)  # no words at all: every document (filters aside)
    needed = minimum_units(len(units))
    held = 0
    for position, (_unit, ways) in enumerate(units):
        if unit_holds(ways, document):
            held += 1
            if held >= needed:
                return True
        elif len(units) - position - 1 < needed - held:
            return False
    return False


def weight(held: int, documents: int) -> float:
    """A unit's specificity among `documents` of its kind, `held` of which match it (a unit
    no document holds yet weighs the most: it is what the searcher waits for)."""
    return math.log(1 + documents / (1 + held))


def clear_by_tokens(
    sketch: Mapping[str, Any], weights: list[float], document: DocumentTokens
) -> bool:
    """The clear-match rule on a document's tokens (`weights`: one per unit)."""
    units = sketch.get("u", [])
    total = sum(weights)
    if units and total > 0:
        matched = sum(
            w for (_unit, ways), w in zip(units, weights, strict=True) if unit_holds(ways, document)
        )
        if matched >= CLEAR_SHARE * total - 1e-9:
            return True
    characters = list(dict.fromkeys(sketch.get("c", [])))
    if characters:
        needed = math.ceil(CHARACTERS_CLEAR * len(characters))
        return sum(1 for c in characters if c in document.grams) >= needed
    return False


def unit_query(kind: str, ways: list[Any]) -> Query:
    """A unit of a sketch as an index query (to count the documents holding it), in the
    naming fields: the same ways `unit_holds` tests."""
    words = NAMING_WORD_FIELDS[kind]
    translated = {name: w for name, w in words.items() if w > 1.0}
    grams = {NAMING_GRAM_FIELD[kind]: 1.0}
    options = []
    for way in ways:
        if way[0] == "x":
            parts = [token_clause(sub[1], translated, grams) for sub in way[1]]
            if parts and all(part is not None for part in parts):
                options.append(all_of([part for part in parts if part is not None]))
        else:
            clause = token_clause(way[1], words, grams)
            if clause is not None:
                options.append(clause)
    return any_of(options) if options else Query.empty_query()


def count_units(kind: str, ways: list[Any], snap: Snapshot) -> int:
    """How many documents of `kind` hold the unit (one count on the index)."""
    query = Query.boolean_query(
        [(Occur.Must, term("kind", kind)), (Occur.Must, unit_query(kind, ways))]
    )
    found = snap.searcher.search(query, 1, True)
    return int(found.count or 0)  # type: ignore[attr-defined]  # missing from the stubs


def count_kind(kind: str, snap: Snapshot) -> int:
    found = snap.searcher.search(term("kind", kind), 1, True)
    return int(found.count or 0)  # type: ignore[attr-defined]  # missing from the stubs
