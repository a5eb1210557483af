"""What the product form's category picker reads: every leaf category with its full path, and
the leaves that fit a product title best.

The picker filters the leaves in the browser as the supplier types, by any of the names of a
leaf and of the categories above it, in English, Simplified or Traditional Chinese, and shows the
path in the viewer's language ("Home & Garden › Vacuum Flasks and Insulated Bottles").

Suggestions score each leaf against the title with the search engine's own text analysis (the
same normalisation, Chinese segmentation, stemming and traditional-to-simplified folding as the
index) and its bilingual glossary (an English title finds the Chinese-only names and the
reverse): words of the leaf's own names count most, words of the categories above it a little,
Chinese character pairs catch what the segmenter cut differently. Only leaves that match by
their own names are suggested. The tree is read in one query; the analysis of each name is
cached in the process.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from tradepost.catalog.models import Category
from tradepost.core.languages import normalise_ui_language
from tradepost.search.analysis import analyze_cjk_grams, analyze_query, analyze_words
from tradepost.search.glossary import translate_words

PATH_SEPARATOR = " › "
SUGGESTIONS_MAX = 5
#: Longest title looked at (characters); the form allows 200.
TITLE_MAX = 200
#: Words too common in category names to tell them apart.
_IGNORED_WORDS = frozenset({"and", "or", "the", "of", "for", "with", "other", "&", "/", "其他"})
_LEAF_WORD, _UPPER_WORD = 3.0, 1.0
_LEAF_GRAM, _UPPER_GRAM = 1.0, 0.3
_COVERAGE = 1.0
_TRANSLATED = 0.8
_HEAD = 3.0


@dataclass(frozen=True)
class CategoryOption:
    id: int
    #: The names from the top category down to this leaf, joined by " › ", in the viewer's
    #: language.
    path: str
    #: Every name of the leaf and of the categories above it, in the three languages, lower
    #: case (what typing in the picker matches).
    terms: str


@dataclass(frozen=True)
class _Node:
    id: int
    parent_id: int | None
    is_leaf: bool
    names: tuple[str, str, str]  # en, zh-hans, zh-hant

    def name_for(self, language: str) -> str:
        return self.names[{"zh-hans": 1, "zh-hant": 2}.get(language, 0)]


def _nodes() -> dict[int, _Node]:
    rows = Category.objects.order_by("path").values_list(
        "id", "parent_id", "is_leaf", "name_en", "name_zh_hans", "name_zh_hant"
    )
    return {
        pk: _Node(id=pk, parent_id=parent_id, is_leaf=is_leaf, names=(en, hans, hant))
        for pk, parent_id, is_leaf, en, hans, hant in rows
    }


def _lineage(node: _Node, nodes: dict[int, _Node]) -> list[_Node]:
    """`node` and the categories above it, the top one first."""
    chain = [node]
    while chain[-1].parent_id is not None and chain[-1].parent_id in nodes and len(chain) < 16:
        chain.append(nodes[chain[-1].parent_id])
    chain.reverse()
    return chain


def category_options(*, language: str) -> list[CategoryOption]:
    """Every leaf category, in tree order, with its full path in `language`."""
    language = normalise_ui_language(language)
    nodes = _nodes()
    options = []
    for node in nodes.values():
        if not node.is_leaf:
            continue
        lineage = _lineage(node, nodes)
        terms = {name.lower() for item in lineage for name in item.names if name}
        options.append(
            CategoryOption(
                id=node.id,
                path=PATH_SEPARATOR.join(item.name_for(language) for item in lineage),
                terms=" ".join(sorted(terms)),
            )
        )
    return options


@lru_cache(maxsize=8192)
def _name_terms(name: str) -> tuple[frozenset[str], frozenset[str]]:
    """(words, Chinese character pairs) of a category name, as the search index cuts them."""
    words = frozenset(analyze_words(name)) - _IGNORED_WORDS
    grams = frozenset(gram for gram in analyze_cjk_grams(name) if len(gram) == 2)
    return words, grams


def _terms_of(node: _Node) -> tuple[frozenset[str], frozenset[str]]:
    words: set[str] = set()
    grams: set[str] = set()
    for name in node.names:
        name_words, name_grams = _name_terms(name)
        words |= name_words
        grams |= name_grams
    return frozenset(words), frozenset(grams)


def _title_terms(title: str) -> tuple[dict[str, float], set[str]]:
    """The title's words, weighted (its own 1, the glossary's translations less), and its
    Chinese character pairs."""
    analyzed = analyze_query(title[:TITLE_MAX])
    weights: dict[str, float] = {}
    for word in analyzed.words:
        if word not in _IGNORED_WORDS:
            weights[word] = 1.0
    found, _labels = translate_words(list(analyzed.words))
    for translations in found.values():
        for translation in translations:
            for term in translation.terms:
                if term in _IGNORED_WORDS:
                    continue
                weight = _TRANSLATED * min(1.0, translation.weight)
                weights[term] = max(weights.get(term, 0.0), weight)
    grams = {gram for gram in analyze_cjk_grams(title[:TITLE_MAX]) if len(gram) == 2}
    return weights, grams


def _head_word(words: list[str]) -> str | None:
    """The word a title is about: its last word without digits, before "for" or "with"
    ("Stainless steel vacuum flask 500 ml" -> flask, "不锈钢保温瓶" -> 保温瓶)."""
    head = None
    for word in words:
        if word in ("for", "with"):
            break
        if not any(character.isdigit() for character in word) and word not in _IGNORED_WORDS:
            head = word
    return head


@dataclass
class _Candidate:
    position: int
    lineage: list[_Node]
    leaf_words: frozenset[str]
    matched_words: list[str]
    upper_words: list[str]
    leaf_grams: int
    upper_grams: int


def suggest_categories(
    *, title: str, language: str, limit: int = SUGGESTIONS_MAX
) -> list[CategoryOption]:
    """The leaf categories that fit `title` best, best first (at most `limit`; none for a
    title that names no category). A word counts more the fewer leaves hold it (as in
    ranking search results), and most when it is the title's head word."""
    language = normalise_ui_language(language)
    title = (title or "").strip()
    if not title:
        return []
    weights, title_grams = _title_terms(title)
    if not weights and not title_grams:
        return []
    head = _head_word(list(analyze_query(title[:TITLE_MAX]).words))
    nodes = _nodes()
    leaves = 0
    holding: dict[str, int] = {}
    candidates: list[_Candidate] = []
    for position, node in enumerate(nodes.values()):
        if not node.is_leaf:
            continue
        leaves += 1
        leaf_words, leaf_grams = _terms_of(node)
        matched_words = [word for word in weights if word in leaf_words]
        for word in matched_words:
            holding[word] = holding.get(word, 0) + 1
        matched_grams = title_grams & leaf_grams
        if not matched_words and not matched_grams:
            continue
        lineage = _lineage(node, nodes)
        upper_words: set[str] = set()
        upper_grams: set[str] = set()
        for upper in lineage[:-1]:
            words, grams = _terms_of(upper)
            upper_words |= words
            upper_grams |= grams
        candidates.append(
            _Candidate(
                position=position,
                lineage=lineage,
                leaf_words=leaf_words,
                matched_words=matched_words,
                upper_words=[w for w in weights if w in upper_words and w not in leaf_words],
                leaf_grams=len(matched_grams),
                upper_grams=len((title_grams & upper_grams) - leaf_grams),
            )
        )

    def rarity(word: str) -> float:
        return 1.0 + math.log((leaves + 1) / (holding.get(word, 0) + 1))

    scored: list[tuple[float, int, CategoryOption]] = []
    for candidate in candidates:
        score = sum(_LEAF_WORD * weights[w] * rarity(w) for w in candidate.matched_words)
        score += sum(_UPPER_WORD * weights[w] for w in candidate.upper_words)
        score += _LEAF_GRAM * candidate.leaf_grams + _UPPER_GRAM * candidate.upper_grams
        if candidate.leaf_words:
            score += _COVERAGE * len(candidate.matched_words) / len(candidate.leaf_words)
        if head is not None and head in candidate.matched_words:
            score += _HEAD * rarity(head)
        option = CategoryOption(
            id=candidate.lineage[-1].id,
            path=PATH_SEPARATOR.join(item.name_for(language) for item in candidate.lineage),
            terms="",
        )
        scored.append((score, candidate.position, option))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [option for _score, _position, option in scored[: max(0, limit)]]
