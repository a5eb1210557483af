"""Cross-lingual query expansion with the project's bilingual glossary of trade terms.

`expand_query("stainless steel vacuum flask")` finds the longest glossary entries in the
query and returns their Chinese translations, already analysed for the "words" field, so
the search service can add them to the query and tell the user ("also searched: 不锈钢保温杯").
A Chinese query (simplified or traditional) expands to English the same way.

The glossary is `data/glossary.tsv` (English <TAB> simplified Chinese, one pair a line,
earlier lines preferred), plus the names of the category tree when
`tradepost/catalog/data/categories.json` is present. It is loaded once per process.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from tradepost.search.analysis import (
    MAX_QUERY_CHARS,
    analyze_words,
    normalize,
)

#: At most this many translations of one matched term are used (the first in the glossary).
TRANSLATIONS_PER_TERM = 3
#: At most this many translations are added to one query.
MAX_EXPANSIONS = 8

#: English glossary terms that describe the offer or qualify the product rather than name
#: it ("wholesale 批发", "new arrival 新款", "genuine 正品", "women 女士", "summer 夏季",
#: "women's clothing 女装"). Their translations are returned apart, as
#: `Expansion.modifier_terms`, when the query also names a product: a search should not
#: require them, or a Chinese title full of 新款/女装/夏季 would never find a plain English
#: listing of the product.
MODIFIERS = frozenset(
    [
        "wholesale",
        "wholesaler",
        "factory",
        "manufacturer",
        "supplier",
        "exporter",
        "importer",
        "distributor",
        "agent",
        "trading company",
        "export",
        "import",
        "oem",
        "odm",
        "custom",
        "customized",
        "private label",
        "sample",
        "free sample",
        "minimum order",
        "moq",
        "bulk",
        "in stock",
        "spot goods",
        "stock",
        "new",
        "new arrival",
        "new style",
        "hot sale",
        "best seller",
        "best selling",
        "cheap",
        "low price",
        "discount",
        "promotion",
        "quality",
        "high quality",
        "certificate",
        "certified",
        "original",
        "genuine",
        "authentic",
        "brand",
        "made in china",
        "domestic",
        "imported",
        "fashion",
        "fashionable",
        "classic",
        "simple",
        "luxury",
        "modern",
        "vintage",
        "retro",
        "creative",
        "cute",
        "casual",
        "professional",
        "standard",
        "universal",
        "replacement",
        # who and when: 女装连衣裙 rarely says 女士, a dress for women is still a dress
        "men",
        "women",
        "ladies",
        "unisex",
        "adult",
        "kids",
        "children",
        "boys",
        "girls",
        "summer",
        "winter",
        "autumn",
        "all season",
        "spring and autumn",
        "women's clothing",
        "women's clothes",
        "men's clothing",
        "men's clothes",
        "children's clothing",
        "kids clothing",
        "household",
        "home",
        "domestic use",
        # sizes
        "mini",
        "small",
        "medium",
        "large",
        "big",
        "extra large",
    ]
)

_HAN_RE = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]")
_HAN_RUN_RE = re.compile("([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]+)")
_ALNUM_RE = re.compile(r"[^\W_]")
# Separators of composite category names ("Bags & Cases", "箱包/皮具").
_EN_SPLIT_RE = re.compile(r"\s*(?:&|,|/| and )\s*")
_ZH_SPLIT_RE = re.compile(r"\s*[/、，,&]\s*")


@dataclass(frozen=True)
class Expansion:
    """What a query adds in the other language.

    `terms` are analysed tokens (as `analyze_words` gives them) to search for; `labels` are
    the translations in the glossary's display form, to show the user; `matched` are the
    glossary terms found in the query. Words that qualify rather than name a product
    (`MODIFIERS`: 批发, 新款, "women"...) are kept apart in `modifier_terms`,
    `modifier_labels` and `modifier_matched`, for a search that may use them but should not
    require them, unless the query has nothing else.
    """

    terms: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    matched: list[str] = field(default_factory=list)
    modifier_terms: list[str] = field(default_factory=list)
    modifier_labels: list[str] = field(default_factory=list)
    modifier_matched: list[str] = field(default_factory=list)

    @property
    def is_empty(self) -> bool:
        return not self.terms


@dataclass(frozen=True)
class _Translation:
    label: str
    terms: tuple[str, ...]
    #: The pair is a trade or marketing word (see `MODIFIERS`).
    modifier: bool = False
    #: How sure the pair is, in (0, 1]: 1 for the curated glossary and the category tree,
    #: the lexicon's own weight for pairs it derived from dictionaries (data/lexicon.tsv).
    weight: float = 1.0


@dataclass
class Glossary:
    """The loaded glossary, indexed both ways."""

    #: (english, chinese) pairs in file order, then the category-tree pairs.
    pairs: list[tuple[str, str]] = field(default_factory=list)
    #: analysed English tokens -> (display form of the English term, Chinese translations)
    english: dict[tuple[str, ...], tuple[str, list[_Translation]]] = field(default_factory=dict)
    #: normalised Chinese -> (display form of the Chinese term, English translations)
    chinese: dict[str, tuple[str, list[_Translation]]] = field(default_factory=dict)
    max_english_tokens: int = 0
    max_chinese_chars: int = 0
    #: analysed forms of `MODIFIERS`
    modifier_keys: frozenset[tuple[str, ...]] = frozenset()
    #: Chinese terms paired with a modifier (新款, 女装...): a modifier in any pair after
    #: (the lexicon's "new style" for 新款 is still a modifier)
    modifier_chinese: set[str] = field(default_factory=set)

    def add(
        self,
        english: str,
        chinese: str,
        *,
        analysed: dict[str, tuple[str, ...]],
        weight: float = 1.0,
    ) -> bool:
        english = " ".join(english.lower().split())
        chinese = "".join(chinese.split())
        if not english or not chinese or not _HAN_RE.search(chinese):
            return False
        if _HAN_RE.search(english):
            return False
        english_tokens = _cached_words(english, analysed)
        chinese_key = normalize(chinese)
        chinese_tokens = _cached_words(chinese_key, analysed)
        if not english_tokens or not chinese_tokens:
            return False
        self.pairs.append((english, chinese))
        modifier = english_tokens in self.modifier_keys or chinese_key in self.modifier_chinese
        if modifier:
            self.modifier_chinese.add(chinese_key)
        # Translations that analyse alike ("gloves", "glove") are one: the first is kept.
        _, translations = self.english.setdefault(english_tokens, (english, []))
        if all(t.terms != chinese_tokens for t in translations):
            translations.append(_Translation(chinese, chinese_tokens, modifier, weight))
        _, translations = self.chinese.setdefault(chinese_key, (chinese, []))
        if all(t.terms != english_tokens for t in translations):
            translations.append(_Translation(english, english_tokens, modifier, weight))
        self.max_english_tokens = max(self.max_english_tokens, len(english_tokens))
        self.max_chinese_chars = max(self.max_chinese_chars, len(chinese_key))
        return True


def _cached_words(text: str, analysed: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    tokens = analysed.get(text)
    if tokens is None:
        tokens = analysed[text] = tuple(analyze_words(text))
    return tokens


def _read_glossary_file() -> Iterator[tuple[str, str]]:
    text = resources.files("tradepost.search").joinpath("data/glossary.tsv").read_text("utf-8")
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        english, _, chinese = line.partition("\t")
        yield english.strip(), chinese.strip()


#: Sources of data/lexicon.tsv read at run time (its glossary and category lines are the
#: files above, read directly so that a glossary edit needs no rebuild of the lexicon).
LEXICON_SOURCES = frozenset({"taxonomy", "cedict"})


def _read_lexicon_file() -> Iterator[tuple[str, str, float]]:
    """(English, Chinese, weight) of the derived lexicon pairs (scripts/build_lexicon.py),
    or nothing when the file is absent."""
    source = resources.files("tradepost.search").joinpath("data/lexicon.tsv")
    if not source.is_file():
        return
    for line in source.read_text("utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) < 4 or parts[3] not in LEXICON_SOURCES:
            continue
        try:
            weight = float(parts[2])
        except ValueError:
            continue
        if 0 < weight <= 1:
            yield parts[0].strip(), parts[1].strip(), weight


# Key pairs naming a category in English and simplified Chinese: the data file's, then the
# model's field names.
_NAME_KEYS = (("en", "zh_hans"), ("name_en", "name_zh_hans"))


def _category_names(node: Any) -> Iterator[tuple[str, str]]:
    """(English, Chinese) names of every node of a category tree, depth first."""
    if isinstance(node, dict):
        for english_key, chinese_key in _NAME_KEYS:
            english, chinese = node.get(english_key), node.get(chinese_key)
            if isinstance(english, str) and isinstance(chinese, str):
                yield english, chinese
                break
        for value in node.values():
            if isinstance(value, dict | list):
                yield from _category_names(value)
    elif isinstance(node, list):
        for item in node:
            yield from _category_names(item)


def category_pairs() -> list[tuple[str, str]]:
    """(English, Chinese) names from the category tree's data file, when there is one.

    Composite names ("Bags & Cases" / "箱包/皮具") are paired part by part when both sides
    have the same number of parts, and skipped otherwise.
    """
    try:
        source = resources.files("tradepost.catalog").joinpath("data/categories.json")
        if not source.is_file():
            return []
        tree = json.loads(source.read_text("utf-8"))
    except (OSError, ValueError, ModuleNotFoundError):
        return []
    pairs: list[tuple[str, str]] = []
    for english, chinese in _category_names(tree):
        english_parts = [p for p in _EN_SPLIT_RE.split(english.strip()) if p]
        chinese_parts = [p for p in _ZH_SPLIT_RE.split(chinese.strip()) if p]
        if len(english_parts) == len(chinese_parts):
            pairs.extend(zip(english_parts, chinese_parts, strict=True))
    return pairs


@cache
def load_glossary() -> Glossary:
    """The glossary file, then the category names, indexed both ways (once per process)."""
    glossary = Glossary(modifier_keys=frozenset(tuple(analyze_words(m)) for m in MODIFIERS))
    analysed: dict[str, tuple[str, ...]] = {}
    for english, chinese in _read_glossary_file():
        glossary.add(english, chinese, analysed=analysed)
    for english, chinese in category_pairs():
        glossary.add(english, chinese, analysed=analysed)
    for english, chinese, weight in _read_lexicon_file():
        glossary.add(english, chinese, analysed=analysed, weight=weight)
    return glossary


def glossary_pairs() -> list[tuple[str, str]]:
    """Every (English, Chinese) pair the glossary holds, in priority order."""
    return list(load_glossary().pairs)


# ---------------------------------------------------------------------------------------
# Expansion.


_Entry = tuple[str, list[_Translation]]


def _english_head(tokens: list[str], glossary: Glossary) -> _Entry | None:
    """The longest glossary term of two words or more that ends a matched English term.

    "stainless steel vacuum flask" has the head "vacuum flask"; one-word heads are too broad
    ("shower curtain" is not what a search for 窗帘, window curtains, wants).
    """
    for start in range(1, len(tokens) - 1):
        entry = glossary.english.get(tuple(tokens[start:]))
        if entry is not None:
            return entry
    return None


def _chinese_head(term: str, glossary: Glossary) -> _Entry | None:
    """The longest glossary term of three characters or more that ends a matched Chinese term.

    不锈钢保温杯 has the head 保温杯; two-character heads are too broad (耳机 of 蓝牙耳机) or
    wrong (衣裙 of 连衣裙).
    """
    for start in range(1, len(term) - 2):
        entry = glossary.chinese.get(term[start:])
        if entry is not None:
            return entry
    return None


def _english_matches(
    tokens: list[str], glossary: Glossary
) -> Iterator[tuple[_Entry, _Entry | None]]:
    """Leftmost-longest glossary terms in a run of English tokens, each with its head."""
    position = 0
    while position < len(tokens):
        longest = min(glossary.max_english_tokens, len(tokens) - position)
        for length in range(longest, 0, -1):
            span = tokens[position : position + length]
            entry = glossary.english.get(tuple(span))
            if entry is not None:
                yield entry, _english_head(span, glossary)
                position += length
                break
        else:
            position += 1


def _chinese_matches(text: str, glossary: Glossary) -> Iterator[tuple[_Entry, _Entry | None]]:
    """Leftmost-longest glossary terms in normalised text, each with its head.

    Terms may mix scripts ("n95口罩", "3d打印机"), so the whole text is scanned, starting
    only at a Han character or at the start of a word. A one-character term counts only
    when it stands alone (棉 in "棉 fabric"), never inside a longer run.
    """
    size = len(text)
    position = 0
    while position < size:
        char = text[position]
        is_han = bool(_HAN_RE.match(char))
        starts_word = is_han or (
            _ALNUM_RE.match(char) is not None
            and (position == 0 or _ALNUM_RE.match(text[position - 1]) is None)
        )
        if not starts_word:
            position += 1
            continue
        longest = min(glossary.max_chinese_chars, size - position)
        for length in range(longest, 1, -1):
            term = text[position : position + length]
            entry = glossary.chinese.get(term)
            if entry is not None:
                yield entry, _chinese_head(term, glossary)
                position += length
                break
        else:
            if is_han and _stands_alone(text, position):
                entry = glossary.chinese.get(char)
                if entry is not None:
                    yield entry, None
            position += 1


def _stands_alone(text: str, position: int) -> bool:
    before = text[position - 1] if position > 0 else " "
    after = text[position + 1] if position + 1 < len(text) else " "
    return not _HAN_RE.match(before) and not _HAN_RE.match(after)


@dataclass
class _Collected:
    terms: dict[str, None] = field(default_factory=dict)
    labels: dict[str, None] = field(default_factory=dict)
    matched: dict[str, None] = field(default_factory=dict)

    def add(self, source: str, translations: list[_Translation]) -> None:
        if len(self.labels) >= MAX_EXPANSIONS:
            return
        self.matched[source] = None
        for translation in translations:
            if len(self.labels) >= MAX_EXPANSIONS:
                return
            self.labels[translation.label] = None
            for token in translation.terms:
                self.terms[token] = None


def expand_query(text: str) -> Expansion:
    """Translate the glossary terms found in a query into the other language.

    English terms are matched on analysed tokens (so "Vacuum Flasks" matches "vacuum
    flask"), longest first ("stainless steel vacuum flask" before "stainless steel");
    Chinese terms are matched in the folded query (traditional 鋼筆 finds 钢笔), longest
    first. Never raises for any `str`.
    """
    if not isinstance(text, str):
        return Expansion()
    normalized = normalize(text[: MAX_QUERY_CHARS * 4])[:MAX_QUERY_CHARS]
    if not normalized:
        return Expansion()
    glossary = load_glossary()
    found: list[tuple[_Entry, _Entry | None]] = []
    for index, part in enumerate(_HAN_RUN_RE.split(normalized)):
        if index % 2 == 0 and part.strip():
            found.extend(_english_matches(analyze_words(part), glossary))
    if _HAN_RE.search(normalized):
        found.extend(_chinese_matches(normalized, glossary))
    # Whole terms first, then their heads ("不锈钢保温杯", then "保温杯").
    entries = [entry for entry, _ in found] + [head for _, head in found if head is not None]

    product: _Collected = _Collected()
    modifiers: _Collected = _Collected()
    for source, translations in entries:
        chosen = translations[:TRANSLATIONS_PER_TERM]
        target = modifiers if all(t.modifier for t in chosen) else product
        target.add(source, chosen)
    if not product.labels:
        # The query is only about modifiers ("wholesale", "女装"): they are what it asks for.
        product, modifiers = modifiers, _Collected()
    return Expansion(
        terms=list(product.terms),
        labels=list(product.labels),
        matched=list(product.matched),
        modifier_terms=list(modifiers.terms),
        modifier_labels=list(modifiers.labels),
        modifier_matched=list(modifiers.matched),
    )


# ---------------------------------------------------------------------------------------
# Word by word, for ranked search.

#: Chinese words of up to this many query tokens are looked up as one term (不锈钢+保温杯).
_MAX_CHINESE_TOKENS = 4


@dataclass(frozen=True)
class TokenTranslation:
    """A translation of a query token: the analysed tokens in the other language, the
    glossary's confidence, and the translation's display form."""

    terms: tuple[str, ...]
    weight: float
    label: str


def _best(translations: list[_Translation]) -> list[_Translation]:
    """The translations to search, surest first (file order among equals)."""
    ranked = sorted(translations, key=lambda t: -t.weight)
    return ranked[:TRANSLATIONS_PER_TERM]


def _chinese_entry(token: str, glossary: Glossary) -> _Entry | None:
    """The entry of a Chinese query word: the word itself, else its longest ending of two
    characters or more (the head of a Chinese compound: 手机壳套 -> 手机壳). Beginnings
    are not tried: 拉拉 of 拉拉裤 is another thing entirely."""
    entry = glossary.chinese.get(token)
    if entry is not None or len(token) < 3:
        return entry
    for start in range(1, len(token) - 1):
        entry = glossary.chinese.get(token[start:])
        if entry is not None:
            return entry
    return None


#: Weight of a synonym found through the other language, times both translations' weights.
SYNONYM_WEIGHT = 0.5


def _synonyms(
    covered: list[str], translations: list[TokenTranslation], glossary: Glossary
) -> list[TokenTranslation]:
    """Words of the query's own language that translate the same way (例假 and 经期 are
    both "menstruation"), at most TRANSLATIONS_PER_TERM of them, weighted by how sure both
    translations are: a listing may use another word for what the buyer typed."""
    chinese = bool(_HAN_RE.match(covered[0]))
    own = "".join(covered) if chinese else " ".join(covered)
    found: dict[tuple[str, ...], TokenTranslation] = {}
    for translation in translations:
        entry = (
            glossary.english.get(translation.terms)
            if chinese
            else glossary.chinese.get(normalize(translation.label))
        )
        if entry is None:
            continue
        for back in _best(entry[1]):
            text = "".join(back.terms) if chinese else " ".join(back.terms)
            if text == own or back.terms in found:
                continue
            weight = round(translation.weight * back.weight * SYNONYM_WEIGHT, 3)
            found[back.terms] = TokenTranslation(back.terms, weight, back.label)
    return sorted(found.values(), key=lambda t: -t.weight)[:TRANSLATIONS_PER_TERM]


def translate_words(words: list[str]) -> tuple[dict[str, list[TokenTranslation]], list[str]]:
    """Translations of an analysed query's words (`AnalyzedQuery.words`), word by word.

    English words are matched leftmost-longest as glossary terms ("vacuum flask" as a
    phrase, before "vacuum" alone); consecutive Chinese words are joined when the glossary
    holds the whole (不锈钢 + 保温杯). Every word of a matched term gets the term's
    translations; a word covered by a longer term is never translated alone. Returns
    {word: translations} and the display labels, at most MAX_EXPANSIONS of them.
    """
    glossary = load_glossary()
    found: dict[str, list[TokenTranslation]] = {}
    labels: dict[str, None] = {}

    def record(covered: list[str], entry: _Entry) -> None:
        chosen = [
            TokenTranslation(t.terms, t.weight, t.label)
            for t in _best(entry[1])
            if not set(t.terms) & set(covered)
        ]
        chosen += [
            synonym
            for synonym in _synonyms(covered, chosen, glossary)
            if not set(synonym.terms) & set(covered)
        ]
        chosen.sort(key=lambda t: -t.weight)
        if not chosen:
            return
        for word in covered:
            found.setdefault(word, []).extend(chosen)
        for translation in chosen:
            if len(labels) < MAX_EXPANSIONS:
                labels[translation.label] = None

    position = 0
    while position < len(words):
        word = words[position]
        if _HAN_RE.match(word):
            longest = min(_MAX_CHINESE_TOKENS, len(words) - position)
            for length in range(longest, 0, -1):
                span = words[position : position + length]
                if not all(_HAN_RE.match(w) for w in span):
                    continue
                joined = "".join(span)
                entry = (
                    glossary.chinese.get(joined) if length > 1 else _chinese_entry(joined, glossary)
                )
                if entry is not None:
                    record(span, entry)
                    position += length
                    break
            else:
                position += 1
            continue
        longest = min(glossary.max_english_tokens, len(words) - position)
        for length in range(longest, 0, -1):
            entry = glossary.english.get(tuple(words[position : position + length]))
            if entry is not None:
                record(words[position : position + length], entry)
                position += length
                break
        else:
            position += 1
    return found, list(labels)
