"""Turning an analysed query into a tantivy query, programmatically.

User text never reaches tantivy's query parser: it is analysed by `tradepost.search.analysis`
and every clause is built from the resulting tokens with `Query.term_query`,
`Query.boolean_query` and friends, so no character of the input has a syntax meaning.

Matching, for each query word:
- any of the word fields (title > extra: keywords, attributes, category, company > description)
  contains the word, or
- for a Chinese word, all of its bigrams appear in one of the gram fields (a title the
  segmenter cut differently still matches; the word fields score higher).
Up to three words must all match; longer queries need three quarters of them. A phrase (the
quoted parts, and the query's words in order) in the title adds to the score. A cross-lingual
expansion of the query is an alternative way to match, scored a little lower.
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
#: Weight of the cross-lingual expansion relative to the query as typed.
EXPANSION_WEIGHT = 0.8
#: A Latin word found in fewer documents than this is "rare" and gets a fuzzy retry.
RARE_DOC_FREQ = 2


@dataclass
class Expansion:
    """A query's cross-lingual expansion, ready to match.

    Each of `alternatives` is one translation's tokens (all must match); at least `minimum`
    alternatives must match, and every `required` token too (words the glossary does not
    cover, such as brands and model numbers, which read the same in every language).
    `optional` translations (of words that qualify rather than name a product: wholesale,
    women's) only add to the score. `query_tokens` is the number of words of the query as
    typed, so an expansion scores about as much as a direct match of the same quality.
    `labels` are shown to the user.
    """

    alternatives: list[list[str]] = field(default_factory=list)
    minimum: int = 1
    required: list[str] = field(default_factory=list)
    optional: list[list[str]] = field(default_factory=list)
    query_tokens: int = 1
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


def token_clause(
    token: str,
    word_fields: Mapping[str, float],
    gram_fields: Mapping[str, float],
    *,
    fuzzy: FuzzyTerm | None = None,
    too_common: TooCommon | None = None,
) -> Query:
    """The ways one query token may match a document (by similar spelling with `fuzzy`)."""
    if fuzzy is not None:
        return any_of(
            [
                boosted(
                    Query.fuzzy_term_query(schema(), name, text, distance=distance),
                    weight * 0.5,
                )
                for text, distance in fuzzy.variants
                for name, weight in word_fields.items()
            ]
        )
    options = [
        boosted(term(name, token), weight)
        for name, weight in _fields_for(token, word_fields, too_common).items()
    ]
    if is_cjk_token(token) and gram_fields:
        per_gram = []
        for gram in _bigrams(token):
            fields = _fields_for(gram, gram_fields, too_common)
            if not fields:
                break
            per_gram.append(any_of([boosted(term(n, gram), w) for n, w in fields.items()]))
        else:
            options.append(all_of(per_gram))
    return any_of(options) if options else Query.empty_query()


def required_matches(count: int) -> int:
    """How many of `count` query words a document must match."""
    return count if count <= 3 else math.ceil(count * 0.75)


#: `doc_freq(field, token)`: how many documents hold `token` in `field`.
DocFreq = Callable[[str, str], int]


def words_clause(
    tokens: Sequence[str],
    word_fields: Mapping[str, float],
    gram_fields: Mapping[str, float],
    *,
    fuzzy: Mapping[str, FuzzyTerm] | None = None,
    too_common: TooCommon | None = None,
    doc_freq: DocFreq | None = None,
) -> Query | None:
    """Each token's clause; all must match, or (four tokens or more) most of them.

    When only most must match, a matching document holds at least one of the
    `count - required + 1` rarest tokens. With `doc_freq`, the clauses of the other tokens
    are restricted to those documents (a filter that adds nothing to the score): the engine
    then walks a common word's postings only where a rare word is, instead of all of them.
    The documents found and their scores are the same.
    """
    tokens = usable(tokens)
    if not tokens:
        return None
    fuzzy = fuzzy or {}
    clauses = [
        token_clause(t, word_fields, gram_fields, fuzzy=fuzzy.get(t), too_common=too_common)
        for t in tokens
    ]
    if len(clauses) == 1:
        return clauses[0]
    required = required_matches(len(clauses))
    if doc_freq is not None and required < len(clauses):
        frequency = {t: sum(doc_freq(name, t) for name in word_fields) for t in tokens}
        rarest = set(sorted(tokens, key=frequency.__getitem__)[: len(tokens) - required + 1])
        guard = filter_clause(
            any_of([c for t, c in zip(tokens, clauses, strict=True) if t in rarest])
        )
        clauses = [
            c if t in rarest else all_of([c, guard]) for t, c in zip(tokens, clauses, strict=True)
        ]
    return any_of(clauses, required)


def grams_only_clause(
    grams: Sequence[str], gram_fields: Mapping[str, float], too_common: TooCommon | None = None
) -> Query | None:
    """For a query whose Chinese part yielded no words (only stop characters)."""
    grams = usable(grams)
    if not grams:
        return None
    options = [
        boosted(term(name, g), weight)
        for g in grams
        for name, weight in _fields_for(g, gram_fields, too_common).items()
    ]
    return any_of(options) if options else Query.empty_query()


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


def _alternative_clause(
    tokens: Sequence[str],
    word_fields: Mapping[str, float],
    gram_fields: Mapping[str, float],
    weight: float,
    too_common: TooCommon | None = None,
) -> Query | None:
    clauses = [
        token_clause(t, word_fields, gram_fields, too_common=too_common) for t in usable(tokens)
    ]
    if not clauses:
        return None
    # A translation of k words stands for `weight` query words: each counts weight / k.
    return boosted(all_of(clauses), weight / len(clauses))


def expansion_clause(
    expansion: Expansion,
    word_fields: Mapping[str, float],
    gram_fields: Mapping[str, float],
    too_common: TooCommon | None = None,
) -> Query | None:
    """Matches the translations; scored like a direct match of the query, times
    EXPANSION_WEIGHT, so results in both languages rank together, the query's own language
    slightly ahead. Synonyms of one concept do not add up: the best one counts."""
    required = [
        token_clause(t, word_fields, gram_fields, too_common=too_common)
        for t in usable(expansion.required)
    ]
    minimum = max(1, expansion.minimum)
    covered = max(1, expansion.query_tokens - len(required))
    per_alternative = covered / minimum
    options = [
        clause
        for tokens in expansion.alternatives
        if (
            clause := _alternative_clause(
                tokens, word_fields, gram_fields, per_alternative, too_common
            )
        )
        is not None
    ]
    if not options:
        return None
    if minimum == 1:
        core = options[0] if len(options) == 1 else Query.disjunction_max_query(options, 0.1)
    else:
        core = any_of(options, min(minimum, len(options)))
    parts = [(Occur.Must, core), *((Occur.Must, clause) for clause in required)]
    for tokens in expansion.optional:
        clause = _alternative_clause(tokens, word_fields, gram_fields, 0.5, too_common)
        if clause is not None:
            parts.append((Occur.Should, clause))
    return boosted(Query.boolean_query(parts), EXPANSION_WEIGHT)


def text_query(
    analyzed: AnalyzedQuery,
    *,
    word_fields: Mapping[str, float],
    gram_fields: Mapping[str, float],
    phrase_field: str,
    expansion: Expansion | None = None,
    fuzzy: Mapping[str, FuzzyTerm] | None = None,
    too_common: TooCommon | None = None,
    doc_freq: DocFreq | None = None,
) -> Query | None:
    """The scored text part of a search, or None for an empty query (match everything).
    With `too_common`, a word does not match in a field where it is boilerplate; with
    `doc_freq`, long queries are evaluated from their rarest words (`words_clause`)."""
    main = words_clause(
        analyzed.words,
        word_fields,
        gram_fields,
        fuzzy=fuzzy,
        too_common=too_common,
        doc_freq=doc_freq,
    )
    if main is None:
        main = grams_only_clause(analyzed.grams, gram_fields, too_common)
    alternatives = [main] if main is not None else []
    if expansion is not None:
        extra = expansion_clause(expansion, word_fields, gram_fields, too_common)
        if extra is not None:
            alternatives.append(extra)
    if not alternatives:
        # Nothing to search for: an empty query shows everything, but a query made only of
        # unusable tokens (one 200-letter "word") matches nothing.
        return None if analyzed.is_empty else Query.empty_query()
    matched = any_of(alternatives)
    phrases = phrase_clauses(analyzed, phrase_field)
    if not phrases:
        return matched
    return Query.boolean_query(
        [(Occur.Must, matched), *((Occur.Should, phrase) for phrase in phrases)]
    )


@dataclass(frozen=True)
class FuzzyTerm:
    """How a rare query word is matched by similar spelling: each (text, edit distance) of
    `variants` against the indexed (stemmed) words. The word as typed comes first: a stem of
    a misspelt word is often further from the right stem than the typed word is ("cordles"
    stems to "cordl", three edits from "cordless", one from what was typed)."""

    variants: tuple[tuple[str, int], ...]


def edit_distance_for(text: str) -> int:
    """Edits allowed for a word of this length (one for short words, two for longer)."""
    return 1 if len(text) <= 5 else 2


def fuzzy_terms(
    analyzed: AnalyzedQuery, searcher: tantivy.Searcher, word_fields: Iterable[str]
) -> dict[str, FuzzyTerm]:
    """Query tokens (stems) to match by similar spelling: those of the unstemmed Latin
    words (`latin_terms`) of four letters or more that are rare or unknown in the index.
    Common words, numbers, units and Chinese are matched exactly."""
    names = list(word_fields)
    tokens = set(usable(analyzed.words))
    fuzzy: dict[str, FuzzyTerm] = {}
    for typed in analyzed.latin_terms:
        if len(typed) < 4 or not typed.isascii() or not typed.isalpha():
            continue
        stems = analyze_words(typed)
        if len(stems) != 1 or stems[0] not in tokens or stems[0] in fuzzy:
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
        fuzzy[stem] = FuzzyTerm(variants=tuple(variants))
    return fuzzy


def fuzzy_distances(
    analyzed: AnalyzedQuery, searcher: tantivy.Searcher, word_fields: Iterable[str]
) -> dict[str, FuzzyTerm]:
    """The former name of `fuzzy_terms` (the evaluation script in bench/ uses it)."""
    return fuzzy_terms(analyzed, searcher, word_fields)


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
