"""Turning an analysed query into a tantivy query, programmatically.

User text never reaches tantivy's query parser: it is analysed by `tradepost.search.analysis`
and every clause is built from the resulting tokens with `Query.term_query`,
`Query.boolean_query` and friends, so no character of the input has a syntax meaning.

Matching is ranked, not boolean (docs/adr/0008-ranked-retrieval.md). Each query word is one
*unit*; a unit matches a document when
- one of the word fields (title > extra: keywords, attributes, category, company >
  description) holds the word, or
- for a Chinese word, enough of its character bigrams are in the gram fields (a title the
  segmenter cut differently still matches; the word fields score higher), or
- one of its translations does (the bilingual lexicon's, weighted by how sure it is), or
- for a rare Latin word the index does not hold, a word spelt like it.
A document is a candidate when it matches at least `minimum_units(n)` of the query's n units
(it grows with the query's length: no single word can veto). BM25 over the fields ranks the
candidates; matching every unit, and the query's words in order in the title, add strong
bonuses, so a listing that has all of the query comes before one that has some of it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import tantivy
from tantivy import Occur, Query

from tradepost.search.analysis import AnalyzedQuery, analyze_words
from tradepost.search.highlight import is_cjk_token
from tradepost.search.index import MAX_TOKEN_CHARS, schema

#: Boost of a phrase match in the title field.
TITLE_PHRASE_BOOST = 2.0
#: Weight of a translation relative to the query word as typed (times its confidence).
EXPANSION_WEIGHT = 0.8
#: Weight of a match by similar spelling relative to the word as typed.
FUZZY_WEIGHT = 0.5
#: A Latin word found in fewer documents than this is "rare" and may match by spelling.
RARE_DOC_FREQ = 1
#: At most this many words of one query are matched by similar spelling.
MAX_FUZZY_WORDS = 2
#: Weight of a Latin word of three letters or more in a query that also holds Chinese: in a
#: Chinese shopper's query such a word is nearly always a brand or a model number (xpac充电头,
#: heynaofficial线上商店), the most specific thing typed, while each Chinese word is shared
#: by many listings.
LATIN_IN_CHINESE_WEIGHT = 2.0
#: Score added, per unit of the query, to a document that matches every unit.
ALL_UNITS_BONUS = 3.0
#: Weight of the query's Chinese characters matched anywhere in the title (what a title
#: shares with the query whatever the segmenter made of both), on top of the units.
TITLE_GRAMS_WEIGHT = 2.0
#: A title holding this share of the query's Chinese characters is a candidate (at the
#: WIDER breadth).
CHARACTERS_SHARE = 0.8

#: Breadths of a search (`text_query`): the query's units; also titles holding most of its
#: Chinese characters; any of its units or grams.
NARROW, WIDER, RELAXED = 0, 1, 2
#: A search finding fewer candidates than this is run again one breadth wider.
WIDEN_BELOW = 100


@dataclass(frozen=True)
class Translation:
    """One translation of a query word (or of the lexicon phrase it belongs to): its
    analysed tokens in the other language (all must match) and the lexicon's confidence."""

    tokens: tuple[str, ...]
    weight: float = 1.0


@dataclass
class Expansion:
    """A query's cross-lingual expansion: for each query token, the translations of the
    lexicon entry covering it (a phrase's translations are shared by its words, and a
    word inside a translated phrase is not translated alone). `labels` are shown to the
    user ("also searched: 保温杯")."""

    translations: dict[str, list[Translation]] = field(default_factory=dict)
    labels: list[str] = field(default_factory=list)


def term(field_name: str, value: Any) -> Query:
    return Query.term_query(schema(), field_name, value)


def boosted(query: Query, boost: float) -> Query:
    return query if boost == 1.0 else Query.boost_query(query, boost)


def any_of(queries: Sequence[Query], minimum: int | None = None) -> Query:
    if len(queries) == 1 and not minimum:
        return queries[0]
    return Query.boolean_query([(Occur.Should, q) for q in queries], minimum)


def all_of(queries: Sequence[Query]) -> Query:
    if len(queries) == 1:
        return queries[0]
    return Query.boolean_query([(Occur.Must, q) for q in queries])


def filter_clause(query: Query) -> Query:
    """A clause that selects without adding to the score."""
    return Query.const_score_query(query, 0.0)


def _bigrams(token: str) -> list[str]:
    if len(token) < 2:
        return [token]
    return list(dict.fromkeys(token[i : i + 2] for i in range(len(token) - 1)))


def usable(tokens: Iterable[str]) -> list[str]:
    return [t for t in dict.fromkeys(tokens) if t and len(t) <= MAX_TOKEN_CHARS]


#: `too_common(field, token)`: True when `token` is so frequent in `field` that matching it
#: there would select a large part of the catalogue (see `CommonTerms`).
TooCommon = Callable[[str, str], bool]


def _fields_for(
    token: str, fields: Mapping[str, float], too_common: TooCommon | None
) -> Mapping[str, float]:
    if too_common is None:
        return fields
    return {name: weight for name, weight in fields.items() if not too_common(name, token)}


def grams_needed(count: int) -> int:
    """How many of a Chinese word's `count` bigrams a document must hold to match it by
    grams: all of two, then all but one in three (保温杯 needs 保温 and 温杯; 不锈钢保温杯
    any four of its five)."""
    return count if count <= 2 else count - max(1, count // 3)


def token_clause(
    token: str,
    word_fields: Mapping[str, float],
    gram_fields: Mapping[str, float],
    *,
    too_common: TooCommon | None = None,
) -> Query | None:
    """The ways one query token may match a document as typed (None: none left)."""
    options = [
        boosted(term(name, token), weight)
        for name, weight in _fields_for(token, word_fields, too_common).items()
    ]
    if is_cjk_token(token) and gram_fields:
        per_gram = []
        for gram in _bigrams(token):
            fields = _fields_for(gram, gram_fields, too_common)
            if fields:
                per_gram.append(any_of([boosted(term(n, gram), w) for n, w in fields.items()]))
        if per_gram:
            needed = grams_needed(len(_bigrams(token)))
            if len(per_gram) >= needed:
                # Scored as one word: the grams share the word's weight.
                options.append(
                    boosted(any_of(per_gram, needed if needed > 1 else None), 1.0 / len(per_gram))
                )
    return any_of(options) if options else None


def fuzzy_clause(fuzzy: FuzzyTerm, word_fields: Mapping[str, float]) -> Query:
    """A rare word matched by similar spelling, or as the two words it runs together."""
    options = [
        boosted(
            Query.fuzzy_term_query(schema(), name, text, distance=distance),
            weight * FUZZY_WEIGHT,
        )
        for text, distance in fuzzy.variants
        for name, weight in word_fields.items()
    ]
    if fuzzy.parts:
        parts = [
            any_of([boosted(term(name, part), weight) for name, weight in word_fields.items()])
            for part in fuzzy.parts
        ]
        options.append(boosted(all_of(parts), 1.0 / len(parts)))
    return any_of(options)


def naming_fields(
    word_fields: Mapping[str, float], gram_fields: Mapping[str, float]
) -> tuple[dict[str, float], dict[str, float]]:
    """The fields a translation is looked for in: the word fields weighing more than 1
    (titles, keywords, attributes, category, company: not descriptions) and the first gram
    field (the title's). A description holds every related word of its trade; matching
    each translation and synonym there found a third of the catalogue for some queries and
    tripled the engine's time at a million listings, for matches the title would rank
    anyway."""
    words = {name: weight for name, weight in word_fields.items() if weight > 1.0}
    grams = dict(list(gram_fields.items())[:1])
    return words or dict(word_fields), grams


def translation_clause(
    translation: Translation,
    word_fields: Mapping[str, float],
    gram_fields: Mapping[str, float],
    too_common: TooCommon | None = None,
) -> Query | None:
    """A translation matched like the query word it stands for, but only where a listing
    names what it is (`naming_fields`): all its tokens, scored as one word times
    EXPANSION_WEIGHT and its confidence."""
    word_fields, gram_fields = naming_fields(word_fields, gram_fields)
    clauses = []
    for token in usable(translation.tokens):
        clause = token_clause(token, word_fields, gram_fields, too_common=too_common)
        if clause is None:
            return None
        clauses.append(clause)
    if not clauses:
        return None
    return boosted(all_of(clauses), EXPANSION_WEIGHT * translation.weight / len(clauses))


def minimum_units(count: int) -> int:
    """How many of a query's `count` units a candidate must match: one of up to two, then
    about half (two of three or four, three of five or six, ...)."""
    return count if count <= 2 else math.ceil(count / 2)


def query_units(tokens: Sequence[str]) -> list[str]:
    """The query's units: its tokens, with each run of single Chinese characters joined
    into one word. The segmenter leaves a name it does not know (a brand, a place: 威驰)
    as single characters; matched one by one, each character would count as a word of
    the query and match any listing holding it anywhere. Joined, the run matches where its
    characters stand together (by bigrams)."""
    units: list[str] = []
    run: list[str] = []
    for token in usable(tokens):
        if len(token) == 1 and is_cjk_token(token):
            run.append(token)
            continue
        if run:
            units.append("".join(run))
            run = []
        units.append(token)
    if run:
        units.append("".join(run))
    return list(dict.fromkeys(units))


def unit_clauses(
    tokens: Sequence[str],
    word_fields: Mapping[str, float],
    gram_fields: Mapping[str, float],
    *,
    expansion: Expansion | None = None,
    fuzzy: Mapping[str, FuzzyTerm] | None = None,
    too_common: TooCommon | None = None,
) -> list[tuple[str, Query]]:
    """(unit, clause) for each unit of the query (`query_units`): the unit as typed, its
    translations and its spelling variants, as alternatives (the best way counts most).
    In a query mixing Chinese and Latin words, a Latin word weighs LATIN_IN_CHINESE_WEIGHT.
    A unit with no way left to match (every field boilerplate) is left out."""
    translations = expansion.translations if expansion is not None else {}
    fuzzy = fuzzy or {}
    units = []
    mixed = any(is_cjk_token(token) for token in tokens)
    for token in query_units(tokens):
        options = []
        direct = token_clause(token, word_fields, gram_fields, too_common=too_common)
        if direct is not None:
            options.append(direct)
        for translation in translations.get(token, ()):
            clause = translation_clause(translation, word_fields, gram_fields, too_common)
            if clause is not None:
                options.append(clause)
        if token in fuzzy:
            options.append(fuzzy_clause(fuzzy[token], word_fields))
        if not options:
            continue
        clause = options[0] if len(options) == 1 else Query.disjunction_max_query(options, 0.1)
        if mixed and len(token) >= 3 and not is_cjk_token(token):
            clause = boosted(clause, LATIN_IN_CHINESE_WEIGHT)
        units.append((token, clause))
    return units


def unit_label(unit: str, analyzed: AnalyzedQuery) -> str:
    """A unit as the user typed it: the Latin word it is the stem of; Chinese in the script
    it was typed in (a traditional query's units are simplified)."""
    if is_cjk_token(unit):
        start = analyzed.text.find(unit)
        if start >= 0 and len(analyzed.typed) == len(analyzed.text):
            return analyzed.typed[start : start + len(unit)]
        return unit
    for typed in analyzed.latin_terms:
        if analyze_words(typed) == [unit]:
            return typed
    return unit


def grams_clause(
    grams: Sequence[str], gram_fields: Mapping[str, float], too_common: TooCommon | None = None
) -> Query | None:
    """Any of the query's Chinese grams anywhere: the last resort of a query nothing else
    matches, and of a query made only of stop characters."""
    grams = usable(grams)
    options = [
        boosted(term(name, g), weight)
        for g in grams
        for name, weight in _fields_for(g, gram_fields, too_common).items()
    ]
    return any_of(options) if options else None


def phrase_clauses(
    analyzed: AnalyzedQuery, phrase_field: str, boost: float = TITLE_PHRASE_BOOST
) -> list[Query]:
    """Score-only phrase clauses: each quoted phrase, and the query's words in order."""
    phrases = [usable(p) for p in analyzed.phrases]
    words = usable(analyzed.words)
    if len(words) >= 2 and words not in phrases:
        phrases.append(words)
    clauses = []
    for phrase in phrases:
        if len(phrase) >= 2:
            clauses.append(boosted(Query.phrase_query(schema(), phrase_field, list(phrase)), boost))
    return clauses


def _title_grams_clause(analyzed: AnalyzedQuery, title_gram_field: str | None) -> Query | None:
    """The query's Chinese characters anywhere in the title, each adding a little: what a
    listing shares with the query whatever the segmenter made of both (its bigrams already
    count through the units)."""
    if title_gram_field is None:
        return None
    grams = [g for g in usable(analyzed.grams) if len(g) == 1]
    if len(grams) < 2:
        return None
    return boosted(any_of([term(title_gram_field, g) for g in grams]), TITLE_GRAMS_WEIGHT)


def _characters_clause(analyzed: AnalyzedQuery, title_gram_field: str | None) -> Query | None:
    """Candidates by characters: a title holding CHARACTERS_SHARE of the query's Chinese
    characters (at least three of them) is a candidate whatever its words (挖掘机装石斗
    finds a title of 挖机, 抓石, 装夹, 铲斗). Selects only; the grams bonus scores it."""
    if title_gram_field is None:
        return None
    characters = [g for g in usable(analyzed.grams) if len(g) == 1]
    if len(characters) < 3:
        return None
    needed = math.ceil(CHARACTERS_SHARE * len(characters))
    return filter_clause(any_of([term(title_gram_field, c) for c in characters], needed))


def breadths(analyzed: AnalyzedQuery) -> list[int]:
    """The breadths worth trying for this query, narrowest first (WIDER only changes
    anything for a query of three Chinese characters or more)."""
    characters = sum(1 for g in usable(analyzed.grams) if len(g) == 1)
    return [NARROW, WIDER, RELAXED] if characters >= 3 else [NARROW, RELAXED]


def widen(breadth: int, total: int, analyzed: AnalyzedQuery) -> int | None:
    """The next breadth to try after finding `total` candidates at `breadth`, or None.
    A search is widened while it finds fewer than WIDEN_BELOW candidates (only to RELAXED
    when it found none): few candidates leave room for listings that share the query's
    characters without its words; many do not, and widening them would cost a pass
    over a large part of the catalogue."""
    later = [b for b in breadths(analyzed) if b > breadth]
    if not later or total >= WIDEN_BELOW:
        return None
    if later[0] == RELAXED and total > 0:
        return None
    return later[0]


def text_query(
    analyzed: AnalyzedQuery,
    *,
    word_fields: Mapping[str, float],
    gram_fields: Mapping[str, float],
    phrase_field: str,
    expansion: Expansion | None = None,
    fuzzy: Mapping[str, FuzzyTerm] | None = None,
    too_common: TooCommon | None = None,
    breadth: int = 0,
) -> Query | None:
    """The scored text part of a search, or None for an empty query (match everything).

    Which listings are candidates grows with `breadth` (`NARROW`, `WIDER`, `RELAXED`):
    those matching `minimum_units` of the query's units; or also those whose title holds
    most of the query's Chinese characters; or any unit or any of the query's Chinese
    grams (for a query nothing matched otherwise). The score is the same at every breadth.
    With `too_common`, a word does not match in a field where it is boilerplate.
    """
    units = [
        clause
        for _unit, clause in unit_clauses(
            analyzed.words,
            word_fields,
            gram_fields,
            expansion=expansion,
            fuzzy=fuzzy,
            too_common=too_common,
        )
    ]
    title_grams = next(iter(gram_fields), None)
    alternatives: list[Query] = []
    if units:
        needed = 1 if breadth >= RELAXED else minimum_units(len(units))
        alternatives.append(any_of(units, needed if needed > 1 else None))
    if breadth == WIDER:
        characters = _characters_clause(analyzed, title_grams)
        if characters is not None:
            alternatives.append(characters)
    if breadth >= RELAXED or not units:
        grams = grams_clause(analyzed.grams, gram_fields, too_common)
        if grams is not None:
            alternatives.append(filter_clause(grams) if units else grams)
    if not alternatives:
        # Nothing to search for: an empty query shows everything, but a query made only of
        # unusable tokens (one 200-letter "word") matches nothing.
        return None if analyzed.is_empty else Query.empty_query()
    matched = any_of(alternatives)
    bonuses: list[Query] = phrase_clauses(analyzed, phrase_field)
    # (Where every candidate must match every unit, the bonus would add the same to all.)
    if len(units) >= 2 and (breadth != NARROW or minimum_units(len(units)) < len(units)):
        bonuses.append(
            Query.const_score_query(
                any_of([filter_clause(u) for u in units], len(units)),
                ALL_UNITS_BONUS * len(units),
            )
        )
    title_clause = _title_grams_clause(analyzed, title_grams)
    if title_clause is not None:
        bonuses.append(title_clause)
    if not bonuses:
        return matched
    return Query.boolean_query(
        [(Occur.Must, matched), *((Occur.Should, bonus) for bonus in bonuses)]
    )


@dataclass(frozen=True)
class FuzzyTerm:
    """How a rare query word is matched by similar spelling: each (text, edit distance) of
    `variants` against the indexed (stemmed) words. The word as typed comes first: a stem of
    a misspelt word is often further from the right stem than the typed word is ("cordles"
    stems to "cordl", three edits from "cordless", one from what was typed)."""

    variants: tuple[tuple[str, int], ...]
    #: Two indexed words the typed word may be run together from ("heynaofficial" ->
    #: "heyna" + "official"), as indexed tokens; empty when there is no such split.
    parts: tuple[str, ...] = ()


#: A word of at least this many letters may be split in two indexed words...
SPLIT_MIN_CHARS = 7
#: ...each of at least this many.
SPLIT_MIN_PART = 3


def split_word(typed: str, searcher: tantivy.Searcher, names: Sequence[str]) -> tuple[str, ...]:
    """The split of a run-together word into two words the index holds, as indexed tokens
    (the split whose rarer part is the most frequent), or ()."""
    best: tuple[int, tuple[str, ...]] = (0, ())
    for cut in range(SPLIT_MIN_PART, len(typed) - SPLIT_MIN_PART + 1):
        tokens = []
        for part in (typed[:cut], typed[cut:]):
            analysed = analyze_words(part)
            if len(analysed) != 1:
                break
            tokens.append(analysed[0])
        if len(tokens) != 2:
            continue
        rarer = min(sum(searcher.doc_freq(name, t) for name in names) for t in tokens)
        if rarer > best[0]:
            best = (rarer, tuple(tokens))
    return best[1]


def edit_distance_for(text: str) -> int:
    """Edits allowed for a word of this length (one for short words, two for longer)."""
    return 1 if len(text) <= 5 else 2


def fuzzy_terms(
    analyzed: AnalyzedQuery,
    searcher: tantivy.Searcher,
    word_fields: Iterable[str],
    *,
    translated: Iterable[str] = (),
) -> dict[str, FuzzyTerm]:
    """Query tokens (stems) to match by similar spelling as well: those of the unstemmed
    Latin words (`latin_terms`) of four letters or more that no document holds and that
    have no translation (`translated`), at most MAX_FUZZY_WORDS of them, longest first;
    a long one may also match as two indexed words run together (`split_word`).
    Known words, numbers, units and Chinese are matched exactly: a fuzzy term walks the
    term dictionary, so it is paid only where it can help."""
    names = list(word_fields)
    tokens = set(usable(analyzed.words))
    skip = set(translated)
    fuzzy: dict[str, FuzzyTerm] = {}
    for typed in sorted(analyzed.latin_terms, key=len, reverse=True):
        if len(fuzzy) >= MAX_FUZZY_WORDS:
            break
        if len(typed) < 4 or not typed.isascii() or not typed.isalpha():
            continue
        stems = analyze_words(typed)
        if len(stems) != 1 or stems[0] not in tokens or stems[0] in fuzzy or stems[0] in skip:
            continue
        stem = stems[0]
        if is_cjk_token(stem) or len(stem) > MAX_TOKEN_CHARS:
            continue
        frequency = sum(searcher.doc_freq(name, stem) for name in names)
        if frequency >= RARE_DOC_FREQ:
            continue
        variants = [(typed, edit_distance_for(typed))]
        if stem != typed and len(stem) >= 3:
            variants.append((stem, edit_distance_for(stem)))
        parts = split_word(typed, searcher, names) if len(typed) >= SPLIT_MIN_CHARS else ()
        fuzzy[stem] = FuzzyTerm(variants=tuple(variants), parts=parts)
    return fuzzy


#: Description fields: where a word stops matching once it is boilerplate.
COMMON_TERM_FIELDS = frozenset({"desc_words", "body_grams"})
#: A word in more than this share of all documents' descriptions is boilerplate there...
COMMON_TERM_FRACTION = 0.05
#: ...provided it is in more than this many (counting and ranking fewer costs little).
COMMON_TERM_MIN_DOCS = 20_000


class CommonTerms:
    """`TooCommon` for one searcher: a word matches no longer in a description field when
    it is in more than 5% of the descriptions, and in over 20,000 of them.

    Descriptions repeat the same selling words ("wholesale", "customized", 批发, 定制): at a
    million listings such a word is in a fifth of all descriptions. Matching it there finds
    a large part of the catalogue, ranks nothing (its weight is near zero) and makes every
    search containing it count and facet hundreds of thousands of listings. It still
    matches in titles, keywords, attributes, categories and company names, where it says
    what a listing is. Small catalogues are unaffected (below the absolute floor).
    """

    def __init__(self, searcher: tantivy.Searcher, fields: frozenset[str] = COMMON_TERM_FIELDS):
        self.searcher = searcher
        self.fields = fields
        self.limit = max(COMMON_TERM_MIN_DOCS, int(searcher.num_docs * COMMON_TERM_FRACTION))
        self._known: dict[tuple[str, str], bool] = {}

    def __call__(self, field_name: str, token: str) -> bool:
        if field_name not in self.fields:
            return False
        key = (field_name, token)
        found = self._known.get(key)
        if found is None:
            found = self._known[key] = self.searcher.doc_freq(field_name, token) > self.limit
        return found
