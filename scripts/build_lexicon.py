"""Build the bilingual search lexicon, `src/tradepost/search/data/lexicon.tsv`.

    .venv/bin/python scripts/build_lexicon.py [--data-dir ../shared/data]
        [--out src/tradepost/search/data/lexicon.tsv] [--report FILE]

One English <TAB> simplified-Chinese pair a line, with a weight in (0, 1] and its source:

- `glossary`, `category` (1.0): the project's glossary and category-tree names;
- `taxonomy` (0.85-0.9): the Google product taxonomy, en-US and zh-CN joined on id;
- `cedict`: CC-CEDICT (CC BY-SA 4.0) glosses, kept only for headwords seen in real
  shopping text (Taobao queries and titles) and weighted by how often they are seen there.

The shared data folder is read only to build the file; search loads the file alone.
The judged sets under `relevance/` are read only for the coverage report.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import permutations
from pathlib import Path
from typing import Any

import pycountry
import rjieba

REPO = Path(__file__).resolve().parents[1]
if str(REPO / "src") not in sys.path:
    sys.path.insert(0, str(REPO / "src"))

from tradepost.search.analysis import analyze_words, warm_up  # noqa: E402  (Django-free)

DEFAULT_DATA_DIR = REPO.parent / "shared" / "data"
DEFAULT_OUT = REPO / "src" / "tradepost" / "search" / "data" / "lexicon.tsv"
GLOSSARY = REPO / "src" / "tradepost" / "search" / "data" / "glossary.tsv"
CATEGORIES = REPO / "src" / "tradepost" / "catalog" / "data" / "categories.json"

#: Sources, strongest first (also the order of lines with the same English and weight).
SOURCES = ("glossary", "category", "taxonomy", "cedict")
MAX_CHINESE_CHARS = 8
MAX_HAN_CHARS = 6
#: English terms: at most this many words, of which at most `MAX_CONTENT_WORDS` are not
#: function words ("small and medium enterprise" is three).
MAX_ENGLISH_WORDS = 5
MAX_CONTENT_WORDS = 3
MAX_TAXONOMY_WORDS = 4
#: CC-CEDICT translations kept for one English term (its most frequent in shopping text).
CANDIDATES_PER_TERM = 3
#: Composite names of at most this many parts are aligned by known translations.
MAX_PERMUTED_PARTS = 4
TAXONOMY_WEIGHT = 0.9
TAXONOMY_PART_WEIGHT = 0.85
#: Weight of the best-ranked CC-CEDICT candidate when it has all the frequency.
CEDICT_TOP_WEIGHT = 0.7
RANK_DECAY = (1.0, 0.85, 0.7)
#: A single character is translated only if used alone at least this often.
MIN_CHARACTER_USES = 3
#: Less sure of a headword's later glosses (first, second, third, later), and of verbs.
SENSE_DECAY = (1.0, 0.85, 0.7, 0.6)
VERB_DECAY = 0.85
#: Weight of a pair kept only for the Chinese -> English direction.
REVERSE_WEIGHT = 0.3
#: Weight of a CC-CEDICT phrase whose Chinese is not seen in shopping text.
PHRASE_WEIGHT = 0.3
#: Ranks (tie-breaks after the weight) of those two kinds of CC-CEDICT lines.
PHRASE_RANK = CANDIDATES_PER_TERM
REVERSE_RANK = CANDIDATES_PER_TERM + 1

HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAN_RE = re.compile(f"[{HAN}]")
_HAN_WORD_RE = re.compile(f"[{HAN}]{{2,}}")
_CHINESE_TERM_RE = re.compile(f"^[{HAN}0-9a-z]+$")
_ENGLISH_TERM_RE = re.compile(r"^[a-z0-9\u00c0-\u024f][a-z0-9\u00c0-\u024f' .+\-]*$")
_PINYIN_RE = re.compile(r"\b[a-z]+[1-5]\b")
_PAREN_RE = re.compile(r"\([^()]*\)|（[^（）]*）")
_BRACKET_RE = re.compile(r"\[[^\]]*\]")
_LEADING_RE = re.compile(r"^(?:to|a|an|the)\s+")
_TRAILING_RE = re.compile(r"(?:\s+etc\.?|[\s.,:!?]+)$")
_STYLE_RE = re.compile(r"^(?:in )?(?:the )?([a-z]+)[ -]style$")
_DEMONYM_RE = re.compile(r"^([a-z]+(?: [a-z]+)??)(?: (?:person|people|national|citizen|or))*$")
_LANGUAGE_RE = re.compile(r"^([a-z]+) (?:\(language\)|language)$")
_BRAND_RE = re.compile(r"\b(?:brand|company|corporation|inc\.|retailer|manufacturer)")
#: Senses a search should not offer: register and usage notes.
_SKIP_NOTE_RE = re.compile(
    r"\((?:[^()]*\b)?(?:derog|vulgar|slang|offensive|pejorative|obscene|archaic|old|"
    r"classical|literary|dialect|jocular|humorous|euphemism|baby talk|fig\.)|\bradical\b",
    re.IGNORECASE,
)
_SKIP_GLOSS_RE = re.compile(
    r"^(?:cl:|(?:old |archaic |ancient |japanese |erhua |obscure |same as )?variant of|see |"
    r"surname |abbr\.|also written|also pr\.|pr\. |taiwan pr\.|classifier for|lit\.|fig\.|"
    r"used in |used for |euphemism for|interjection|particle |radical |onom\.)",
    re.IGNORECASE,
)
# Composite category names: "Bags & Cases", "箱包/皮具", "粘合剂与磁性材料".
_EN_PARTS_RE = re.compile(r"\s*(?:&|,|/|\band\b)\s*")
_ZH_PARTS_RE = re.compile(f"\\s*[/、，,&]\\s*|(?<=[{HAN}]{{2}})[与及](?=[{HAN}]{{2}})")
_CEDICT_LINE_RE = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/\s*$")
_PROPER_SYLLABLE_RE = re.compile(r"^[A-Z][a-z]*[1-5]$")

#: English function words: never a lexicon term alone, not counted in coverage.
STOP_WORDS = frozenset(
    [
        "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are",
        "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but",
        "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for",
        "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself",
        "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself",
        "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "of", "off", "on", "once",
        "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she",
        "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them",
        "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too",
        "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which",
        "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself",
        "yourselves",
    ]
)  # fmt: skip
#: Words that do not count against `MAX_CONTENT_WORDS`.
_FUNCTION_WORDS = frozenset(["and", "or", "of", "for", "the", "a", "an", "to", "in", "with"])
#: Words that must not appear in a term (CC-CEDICT's "sb", "sth" of verb glosses).
_BAD_WORDS = frozenset(["sb", "sth", "sb's", "sth's", "oneself", "one's", "etc"])
#: Country names that CC-CEDICT uses and pycountry does not give ("us" is left out: a pronoun).
_COUNTRY_ALIASES = frozenset(
    ["usa", "uk", "britain", "great britain", "england", "korea", "south korea", "north korea",
     "taiwan", "hong kong", "macao", "macau", "russia", "vietnam", "europe"]
)  # fmt: skip


@dataclass(frozen=True)
class Entry:
    """One line of the lexicon."""

    english: str
    chinese: str
    weight: float
    source: str
    #: order within the source (glossary line, candidate rank): earlier is preferred
    rank: int = 0

    def line(self) -> str:
        return f"{self.english}\t{self.chinese}\t{self.weight:.2f}\t{self.source}"


@dataclass
class Report:
    """What the build produced, and how much of the dev queries' vocabulary it covers."""

    by_source: Counter[str] = field(default_factory=Counter)
    #: CC-CEDICT lines by kind: ranked for an English term, Chinese -> English, phrase
    cedict_kinds: Counter[str] = field(default_factory=Counter)
    english_terms: int = 0
    chinese_terms: int = 0
    lines: int = 0
    coverage: dict[str, tuple[int, int]] = field(default_factory=dict)

    def text(self) -> str:
        rows = [f"lines: {self.lines}"]
        rows += [f"  {source}: {self.by_source[source]}" for source in SOURCES]
        rows += [f"    {kind}: {count}" for kind, count in sorted(self.cedict_kinds.items())]
        rows.append(f"distinct English terms: {self.english_terms}")
        rows.append(f"distinct Chinese terms: {self.chinese_terms}")
        for label, (covered, total) in self.coverage.items():
            share = covered / total if total else 0.0
            rows.append(f"{label}: {covered}/{total} = {share:.1%}")
        return "\n".join(rows) + "\n"


# ---------------------------------------------------------------------------------------
# Normalisation.


def english_key(english: str) -> str:
    """An English term as search analyses it (stemmed words): terms alike share a key."""
    return " ".join(analyze_words(english))


def normalize_english(text: str) -> str:
    """Lower case, "&" as "and", single spaces."""
    text = text.replace("&", " and ").replace("\u2019", "'").lower()
    return " ".join(text.split())


def normalize_chinese(text: str) -> str:
    """No spaces; Latin letters lower case ("3D打印机" -> "3d打印机")."""
    return "".join(text.split()).lower()


def valid_english(
    english: str,
    max_words: int = MAX_ENGLISH_WORDS,
    max_content: int = MAX_CONTENT_WORDS,
    *,
    dictionary: bool = True,
) -> bool:
    """A short lower-case term: no Han, no sentence.

    A `dictionary` term (from CC-CEDICT glosses) is also no lone stop word ("down" and
    "can" are trade terms in the glossary, not in a gloss), no pinyin ("hao3"), no
    abbreviation ("i.e", "esp. t. rex"), no affix ("micro-") and no pattern ("both ... and").
    """
    if not english or not _ENGLISH_TERM_RE.match(english) or len(english) > 48:
        return False
    words = english.split()
    if len(words) > max_words or any(word in _BAD_WORDS for word in words):
        return False
    content = [word for word in words if word not in _FUNCTION_WORDS]
    if not content or len(content) > max_content:
        return False
    if not any(char.isalpha() for char in english):
        return False
    if not dictionary:
        return True
    if english in STOP_WORDS or _PINYIN_RE.search(english) or "." in english:
        return False
    return english[0] not in "-'" and english[-1] not in "-'"


def valid_chinese(chinese: str, max_han: int = MAX_HAN_CHARS) -> bool:
    """Simplified Han (Latin letters and digits allowed), 1-`max_han` Han characters."""
    if not _CHINESE_TERM_RE.match(chinese) or len(chinese) > MAX_CHINESE_CHARS:
        return False
    return 1 <= len(_HAN_RE.findall(chinese)) <= max_han


@dataclass
class Known:
    """Translations already known (glossary, CC-CEDICT), to align category-name parts."""

    #: English word, as search analyses it -> Han characters of its translations
    characters: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    #: Chinese term -> the analysed words of its English translations
    words: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[str, str]]) -> Known:
        known = cls()
        for english, chinese in pairs:
            words = english_key(english).split()
            known.words[chinese].update(words)
            if len(words) == 1:
                known.characters[words[0]].update(_HAN_RE.findall(chinese))
        return known

    def support(self, english: str, chinese: str) -> int:
        """How many words of an English name translate to something sharing a character."""
        found = set(chinese)
        words = english_key(english).split()
        return sum(1 for word in words if self.characters.get(word, set()) & found)

    def contradicts(self, english: str, chinese: str) -> bool:
        """Whether the Chinese is known to mean something else ("Shochu" is not 日本)."""
        meanings = self.words.get(chinese)
        return bool(meanings) and not meanings & set(english_key(english).split())


def split_composite(
    english: str, chinese: str, known: Known | None = None
) -> Iterator[tuple[str, str, bool]]:
    """(English, Chinese, was split) pairs of two category names.

    Composite names ("Bags & Cases" / "箱包/皮具") pair part by part when both sides have as
    many parts, in the order that `known` translations support best ("Fruits & Vegetables"
    / "蔬菜/水果"), unless a part is known to mean something else ("Shochu & Soju" /
    "日本/韩国烧酒"); one English name with several Chinese synonyms ("Scrub Caps" /
    "手术帽/无尘帽") pairs with each; otherwise the whole names pair when the Chinese is one
    term.
    """
    english_parts = [normalize_english(p) for p in _EN_PARTS_RE.split(english.strip()) if p]
    chinese_parts = [normalize_chinese(p) for p in _ZH_PARTS_RE.split(chinese.strip()) if p]
    english_parts = [p for p in english_parts if p]
    chinese_parts = [p for p in chinese_parts if p]
    if not english_parts or not chinese_parts:
        return
    pairs: list[tuple[str, str]] = []
    if len(english_parts) == len(chinese_parts):
        if len(english_parts) == 1:
            yield english_parts[0], chinese_parts[0], False
            return
        shared = _shares_word(english_parts, chinese_parts)
        if known is not None and len(chinese_parts) <= MAX_PERMUTED_PARTS:
            chinese_parts = list(
                max(
                    permutations(chinese_parts),
                    key=lambda order: sum(
                        known.support(e, c) for e, c in zip(english_parts, order, strict=True)
                    ),
                )
            )
        pairs = [
            (e, c)
            for e, c in zip(english_parts, chinese_parts, strict=True)
            if not (shared and " " not in e)
        ]
    elif len(english_parts) == 1 and _common_end(chinese_parts):
        pairs = [(english_parts[0], c) for c in chinese_parts]
    elif len(chinese_parts) == 1:
        yield normalize_english(english), chinese_parts[0], False
        return
    for e, c in pairs:
        if known is None or not known.contradicts(e, c):
            yield e, c, True


def _common_end(parts: Sequence[str]) -> bool:
    """Whether all the parts start, or all end, with the same character (锡纸/锡箔纸)."""
    return len({p[0] for p in parts}) == 1 or len({p[-1] for p in parts}) == 1


def _shares_word(english_parts: Sequence[str], chinese_parts: Sequence[str]) -> bool:
    """Whether the parts of a composite name share a word that a one-word part lacks.

    "Platform & Paddle Tennis" (平台网球/板网球) is platform tennis; "Referee Stands & Chairs"
    (裁判台/裁判椅) are referee chairs: the English parts differ in length, or the Chinese
    parts share their first or last character.
    """
    return len({len(part.split()) for part in english_parts}) > 1 or _common_end(chinese_parts)


# ---------------------------------------------------------------------------------------
# The project's own vocabulary.


def read_glossary(path: Path) -> list[tuple[str, str]]:
    """(English, Chinese) pairs of glossary.tsv, in file order."""
    pairs = []
    for line in path.read_text("utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        english, _, chinese = line.partition("\t")
        pairs.append((normalize_english(english), normalize_chinese(chinese)))
    return pairs


def _category_names(node: Any) -> Iterator[tuple[str, str]]:
    if isinstance(node, dict):
        english, chinese = node.get("en"), node.get("zh_hans")
        if isinstance(english, str) and isinstance(chinese, str):
            yield english, chinese
        for value in node.values():
            yield from _category_names(value)
    elif isinstance(node, list):
        for item in node:
            yield from _category_names(item)


def read_category_pairs(path: Path) -> list[tuple[str, str]]:
    """(English, Chinese) names of the category tree, composite names split."""
    if not path.is_file():
        return []
    tree = json.loads(path.read_text("utf-8"))
    return [(e, c) for english, chinese in _category_names(tree) for e, c, _ in
            split_composite(english, chinese)]  # fmt: skip


def curated_entries(glossary: Path, categories: Path) -> list[Entry]:
    """Glossary then category-tree pairs, weight 1.0, in their file order."""
    entries = []
    for source, pairs in (
        ("glossary", read_glossary(glossary)),
        ("category", read_category_pairs(categories)),
    ):
        for rank, (english, chinese) in enumerate(pairs):
            if valid_english(english, 8, 8, dictionary=False) and valid_chinese(chinese, 8):
                entries.append(Entry(english, chinese, 1.0, source, rank))
    return entries


# ---------------------------------------------------------------------------------------
# Google product taxonomy.


def read_taxonomy(path: Path) -> dict[int, str]:
    """Category id -> last component of its path (`id - A > B > C` -> C)."""
    names = {}
    for line in path.read_text("utf-8").splitlines():
        number, separator, category_path = line.partition(" - ")
        if separator and number.strip().isdigit():
            names[int(number)] = category_path.split(">")[-1].strip()
    return names


def taxonomy_entries(
    english_path: Path, chinese_path: Path, known: Known | None = None
) -> list[Entry]:
    """Pairs of the last path component of each id in both languages."""
    english_names = read_taxonomy(english_path)
    chinese_names = read_taxonomy(chinese_path)
    entries = []
    for number in sorted(english_names.keys() & chinese_names.keys()):
        for english, chinese, split in split_composite(
            english_names[number], chinese_names[number], known
        ):
            if valid_english(
                english, MAX_TAXONOMY_WORDS, MAX_TAXONOMY_WORDS, dictionary=False
            ) and valid_chinese(chinese, 8):
                weight = TAXONOMY_PART_WEIGHT if split else TAXONOMY_WEIGHT
                entries.append(Entry(english, chinese, weight, "taxonomy", number))
    return entries


# ---------------------------------------------------------------------------------------
# Shopping text: how often a Chinese word is used when people buy and sell.


def read_queries(path: Path) -> list[str]:
    """The query column of `id<TAB>query` lines."""
    queries = []
    for line in path.read_text("utf-8").splitlines():
        _, separator, query = line.partition("\t")
        if separator and query.strip():
            queries.append(query.strip().lower())
    return queries


def read_bio_titles(path: Path) -> list[str]:
    """Titles rebuilt from one-character-a-line BIO files (blank line between titles)."""
    titles: list[str] = []
    characters: list[str] = []
    for line in [*path.read_text("utf-8").splitlines(), ""]:
        if line.strip():
            characters.append(line.split()[0])
        elif characters:
            titles.append("".join(characters).lower())
            characters = []
    return titles


def shopping_texts(data_dir: Path) -> list[str]:
    """Real Taobao queries and titles."""
    texts = read_queries(data_dir / "multi_cpr_ecom" / "train.query.txt")
    for path in sorted((data_dir / "taobao_title_ner").glob("*.txt")):
        texts.extend(read_bio_titles(path))
    return texts


def headword_frequencies(texts: Iterable[str], headwords: set[str]) -> Counter[str]:
    """How often each headword is used in the texts.

    A word is counted wherever it occurs as a substring, unless the occurrence straddles a
    word boundary of the segmentation (服服 in 衣服/服装, 钢保 in 不锈钢/保温杯). A single
    character counts only where the segmenter leaves it alone between longer words: not
    inside a longer word (案 in 图案 is not 案, "case") nor in a run of single characters,
    which is how unknown names and brands come out (威 of 威/克/士).
    """
    longest = max((len(word) for word in headwords), default=0)
    counts: Counter[str] = Counter()
    for text in texts:
        tokens = rjieba.cut(text, False)
        token_of: list[int] = []  # position -> index of its token
        starts = set()  # positions where a token starts, and the end of the text
        for number, token in enumerate(tokens):
            starts.add(len(token_of))
            token_of.extend([number] * len(token))
            if len(token) == 1 and token in headwords:
                before = tokens[number - 1] if number else ""
                after = tokens[number + 1] if number + 1 < len(tokens) else ""
                if not _is_han_char(before) and not _is_han_char(after):
                    counts[token] += 1
        size = len(token_of)
        starts.add(size)
        for start in range(size):
            for end in range(start + 2, min(size, start + longest) + 1):
                piece = text[start:end]
                if piece in headwords and (
                    token_of[start] == token_of[end - 1] or (start in starts and end in starts)
                ):
                    counts[piece] += 1
    return counts


def _is_han_char(token: str) -> bool:
    return len(token) == 1 and _HAN_RE.match(token) is not None


# ---------------------------------------------------------------------------------------
# CC-CEDICT.


@dataclass(frozen=True)
class Term:
    """An English term of a gloss; `verb` when the gloss said "to ..."."""

    english: str
    verb: bool = False


@dataclass
class CedictEntry:
    """One CC-CEDICT line, its glosses already turned into English terms."""

    chinese: str
    proper: bool
    #: English terms of each gloss, in order (none for a note, a reference, a classifier)
    glosses: list[list[Term]]
    #: the glosses as written, lower case ("/"-separated)
    raw: str


@dataclass(frozen=True)
class Sense:
    """An English term for a CC-CEDICT headword.

    `index` is the gloss's position among the headword's glosses (0: its first, taken as
    its commonest sense); `prior` the share of the headword's uses guessed to mean this
    term (halved for each later gloss, halved again for a verb: shoppers name things).
    `primary`: the first term of the first gloss, not a verb, the only sense a single
    character may be translated by.
    """

    english: str
    chinese: str
    index: int
    prior: float
    primary: bool = False
    verb: bool = False


def gloss_terms(gloss: str) -> list[Term]:
    """English terms of one gloss: notes, references and articles dropped, split on ";"."""
    gloss = gloss.strip()
    if _SKIP_GLOSS_RE.match(gloss) or _SKIP_NOTE_RE.search(gloss):
        return []
    previous = None
    while previous != gloss:
        previous, gloss = gloss, _PAREN_RE.sub(" ", gloss)
    gloss = _BRACKET_RE.sub(" ", gloss).strip()
    if _HAN_RE.search(gloss) or _SKIP_GLOSS_RE.match(gloss):
        return []
    terms: list[Term] = []
    for part in gloss.split(";"):
        term = normalize_english(part)
        verb = term.startswith("to ")
        previous = None
        while previous != term:
            previous = term
            term = _TRAILING_RE.sub("", _LEADING_RE.sub("", term)).strip()
        style = _STYLE_RE.match(term)
        if style:
            term = f"{style.group(1)} style"
        if valid_english(term) and all(t.english != term for t in terms):
            terms.append(Term(term, verb))
    return terms


def read_cedict(path: Path) -> tuple[list[CedictEntry], str]:
    """Usable entries of CC-CEDICT (simplified headword), and the file's date."""
    entries = []
    date = ""
    for line in path.read_text("utf-8").splitlines():
        if line.startswith("#"):
            if line.startswith("#! date="):
                date = line.removeprefix("#! date=")[:10]
            continue
        match = _CEDICT_LINE_RE.match(line)
        if not match:
            continue
        _, simplified, pinyin, glosses = match.groups()
        chinese = normalize_chinese(simplified)
        if not valid_chinese(chinese):
            continue
        proper = any(_PROPER_SYLLABLE_RE.match(s) for s in pinyin.split())
        terms = [gloss_terms(gloss) for gloss in glosses.split("/")]
        entries.append(CedictEntry(chinese, proper, terms, glosses.lower()))
    return entries, date


def _country_names() -> frozenset[str]:
    names = set(_COUNTRY_ALIASES)
    for country in pycountry.countries:
        for attribute in ("name", "common_name"):
            value = getattr(country, attribute, None)
            if value and "," not in value:
                names.add(value.lower())
    return frozenset(names)


def _entry_senses(entry: CedictEntry, primary: bool = True) -> Iterator[Sense]:
    """The senses of an ordinary (not proper-name) entry; `primary`: it may have one."""
    total = sum(0.5**index for index, terms in enumerate(entry.glosses) if terms)
    for index, terms in enumerate(entry.glosses):
        for position, term in enumerate(terms):
            prior = 0.5**index / total * (0.5 if term.verb else 1.0)
            first = primary and index == 0 and position == 0 and not term.verb
            yield Sense(term.english, entry.chinese, index, prior, first, term.verb)


def cedict_senses(entries: Sequence[CedictEntry]) -> list[Sense]:
    """English terms of every headword, in gloss order.

    Proper names are skipped except countries ("Japan" 日本), their adjectives ("Japanese"
    日本, "Japanese style" 日式, "Korean version" 韩版) and brands ("Huawei" 华为).
    """
    countries = _country_names()
    readings = Counter(entry.chinese for entry in entries if not entry.proper)
    senses: list[Sense] = []
    country_of: dict[str, str] = {}  # Chinese country name -> English
    for entry in entries:
        if not entry.proper:
            # A character read two ways (吧 "bar" and the particle) has no primary sense.
            ambiguous = len(entry.chinese) == 1 and readings[entry.chinese] > 1
            senses.extend(_entry_senses(entry, primary=not ambiguous))
            continue
        first_raw = entry.raw.split("/")[0]
        if _BRAND_RE.search(first_raw) and not _SKIP_NOTE_RE.search(first_raw):
            # "Huawei (brand)", "Nike, Inc.", "Uniqlo, Japanese clothing brand"; a second
            # sense when the name is also a word (老板, "boss", is the brand Robam)
            name = normalize_english(re.split(r"[(,]", first_raw)[0])
            if valid_english(name, 3):
                index = 1 if readings[entry.chinese] else 0
                senses.append(Sense(name, entry.chinese, index, 0.5**index, True))
        if not entry.glosses[0] or not _HAN_WORD_RE.fullmatch(entry.chinese):
            continue
        for term in entry.glosses[0]:
            if term.english in countries:
                country_of.setdefault(entry.chinese, term.english)
                senses.append(Sense(term.english, entry.chinese, 0, 1.0, True))
                # "south korea" is also "korea"
                short = term.english.split()[-1]
                if short != term.english and short in countries:
                    senses.append(Sense(short, entry.chinese, 1, 0.5))

    # Adjectives: from "<country>人" ("Japanese person", "Frenchman/French person"), from
    # languages ("English (language)"); then "<adjective> style" words.
    demonyms: dict[str, str] = {}
    languages: set[str] = set()
    for entry in entries:
        country = entry.chinese[:-1]
        if not entry.proper:
            continue
        if entry.chinese.endswith("人") and country in country_of:
            terms = [t.english for gloss in entry.glosses[:2] for t in gloss]
            terms.sort(key=lambda term: not term.endswith(("person", "people")))
            for term in terms:
                match = _DEMONYM_RE.match(term)
                if match:
                    demonyms.setdefault(country, match.group(1))
                    break
        language = _LANGUAGE_RE.match(entry.raw.split("/")[0])
        if language and entry.chinese.endswith(("语", "文")):
            languages.add(language.group(1))
    adjectives = set(demonyms.values()) | languages
    for country, adjective in sorted(demonyms.items()):
        senses.append(Sense(adjective, country, 1, 0.5))
    for entry in entries:
        if not entry.proper:
            continue
        for index, terms in enumerate(entry.glosses[:2]):
            for term in terms:
                style = _STYLE_RE.match(term.english)
                if term.english in adjectives:
                    senses.append(Sense(term.english, entry.chinese, index, 0.5**index))
                elif style and style.group(1) in adjectives:
                    senses.append(Sense(term.english, entry.chinese, index, 0.5**index))
                    senses.append(Sense(style.group(1), entry.chinese, index + 1, 0.25))

    # A country's one-character abbreviation + 版 "version": 韩版, 日版, 美版.
    raw_by_char: dict[str, str] = defaultdict(str)
    for entry in entries:
        if len(entry.chinese) == 1:
            raw_by_char[entry.chinese] += entry.raw
    for country, adjective in sorted(demonyms.items()):
        raw = raw_by_char.get(country[0], "")
        if country_of[country] in raw or country in raw:
            senses.append(Sense(f"{adjective} version", country[0] + "版", 0, 1.0, True))
            senses.append(Sense(adjective, country[0] + "版", 1, 0.5))
    return senses


def _confidence(frequency: int) -> float:
    """Trust in a pair from how often its Chinese side is seen: 1 -> 0.5, 100 -> 1."""
    return min(1.0, 0.5 + 0.25 * math.log10(max(frequency, 1)))


def _round(weight: float) -> float:
    return max(0.05, min(1.0, round(weight, 2)))


def cedict_entries(senses: Sequence[Sense], frequencies: Counter[str]) -> list[Entry]:
    """The translations of each English term, ranked and weighted by shopping frequency.

    English -> Chinese: a candidate headword scores its frequency in shopping text times
    the sense's prior (how many of its uses are guessed to mean the term); candidates never
    seen, and single characters but for their primary sense, are dropped. The best
    `CANDIDATES_PER_TERM` are kept, weighted by rank, share of the score and frequency.
    Chinese -> English: a seen headword left without any line keeps its first gloss,
    weighted low.
    """
    by_term: dict[str, dict[str, tuple[float, Sense]]] = defaultdict(dict)
    for sense in senses:
        frequency = frequencies.get(sense.chinese, 0)
        if len(sense.chinese) == 1 and (not sense.primary or frequency < MIN_CHARACTER_USES):
            continue
        if not frequency:
            continue
        score = frequency * sense.prior
        key = english_key(sense.english)
        if not key:
            continue
        candidates = by_term[key]
        best = candidates.get(sense.chinese)
        if best is None or score > best[0]:
            candidates[sense.chinese] = (score, sense)

    entries = []
    translated: set[str] = set()
    for key in sorted(by_term):
        candidates = by_term[key]
        total = sum(score for score, _ in candidates.values())
        ranked = sorted(candidates.values(), key=lambda c: (-c[0], c[1].index, c[1].chinese))
        for rank, (score, sense) in enumerate(ranked[:CANDIDATES_PER_TERM]):
            weight = (
                CEDICT_TOP_WEIGHT
                * (0.4 + 0.6 * score / total)
                * RANK_DECAY[rank]
                * SENSE_DECAY[min(sense.index, len(SENSE_DECAY) - 1)]
                * (VERB_DECAY if sense.verb else 1.0)
                * _confidence(frequencies[sense.chinese])
            )
            entries.append(Entry(sense.english, sense.chinese, _round(weight), "cedict", rank))
            translated.add(sense.chinese)

    reverse: Counter[str] = Counter()
    for sense in senses:
        frequency = frequencies.get(sense.chinese, 0)
        if not frequency or sense.chinese in translated or sense.index > 0:
            continue
        if len(sense.chinese) == 1 and (not sense.primary or frequency < MIN_CHARACTER_USES):
            continue
        if reverse[sense.chinese] >= 2:
            continue
        reverse[sense.chinese] += 1
        weight = REVERSE_WEIGHT * _confidence(frequency)
        entries.append(Entry(sense.english, sense.chinese, _round(weight), "cedict", REVERSE_RANK))
    return entries


def phrase_entries(
    senses: Sequence[Sense], frequencies: Counter[str], entries: Sequence[Entry]
) -> list[Entry]:
    """Multi-word phrases kept though their Chinese is not seen in shopping text.

    A phrase entry stops a word-by-word translation ("small and medium enterprise" is
    中小企业, not 小号 + 中号). Kept only when the phrase is not translated yet, has one
    unseen candidate, is its headword's first sense and not a verb, and each of its words
    already translates to something sharing a character with it (so the phrase is made of
    lexicon words and is no idiom).
    """
    characters: dict[str, set[str]] = defaultdict(set)  # English key -> its translations' Han
    for entry in entries:
        characters[english_key(entry.english)].update(entry.chinese)
    candidates: dict[str, list[Sense]] = defaultdict(list)
    for sense in senses:
        if frequencies.get(sense.chinese) or sense.index or sense.verb:
            continue
        key = english_key(sense.english)
        if (
            len(key.split()) >= 2
            and len(sense.chinese) >= 2
            and key not in characters
            and all(sense.chinese != other.chinese for other in candidates[key])
        ):
            candidates[key].append(sense)
    phrases = []
    for key, found in sorted(candidates.items()):
        if len(found) != 1:
            continue
        sense = found[0]
        if all(characters.get(word, set()) & set(sense.chinese) for word in key.split()):
            phrases.append(
                Entry(sense.english, sense.chinese, PHRASE_WEIGHT, "cedict", PHRASE_RANK)
            )
    return phrases


# ---------------------------------------------------------------------------------------
# Assembly.


def merge(entries: Iterable[Entry]) -> list[Entry]:
    """One line per (English, Chinese), English compared as search analyses it.

    The highest weight wins, then the stronger source; sorted by English term, weight
    (highest first), source and rank, so the glossary's first-listed translation stays first.
    """
    best: dict[tuple[str, str], Entry] = {}
    for entry in entries:
        key = (english_key(entry.english), entry.chinese)
        if not key[0]:
            continue
        current = best.get(key)
        if current is None or _strength(entry) > _strength(current):
            best[key] = entry
    return sorted(best.values(), key=_sort_key)


def _strength(entry: Entry) -> tuple[float, int, int]:
    return (entry.weight, -SOURCES.index(entry.source), -entry.rank)


def _sort_key(entry: Entry) -> tuple[str, float, int, int, str]:
    return (entry.english, -entry.weight, SOURCES.index(entry.source), entry.rank,
            entry.chinese)  # fmt: skip


def build(
    data_dir: Path, glossary: Path = GLOSSARY, categories: Path = CATEGORIES
) -> tuple[list[Entry], str]:
    """Every lexicon line, merged and sorted, and the CC-CEDICT date."""
    # The segmenter with the project's trade-term dictionary, as search uses it, whatever
    # ran before in this process (rjieba is one segmenter per process).
    warm_up()
    taxonomy = data_dir / "google_product_taxonomy"
    cedict, date = read_cedict(data_dir / "cc_cedict" / "cedict_ts.txt")
    senses = cedict_senses(cedict)
    frequencies = headword_frequencies(shopping_texts(data_dir), {s.chinese for s in senses})
    curated = curated_entries(glossary, categories)
    known = Known.from_pairs(
        [(e.english, e.chinese) for e in curated] + [(s.english, s.chinese) for s in senses]
    )
    entries = [
        *curated,
        *taxonomy_entries(
            taxonomy / "taxonomy-with-ids.en-US.txt",
            taxonomy / "taxonomy-with-ids.zh-CN.txt",
            known,
        ),
        *cedict_entries(senses, frequencies),
    ]
    entries += phrase_entries(senses, frequencies, entries)
    return merge(entries), date


def header(date: str) -> str:
    """The comment lines at the top of the file."""
    return "\n".join(
        [
            "# Tradepost bilingual lexicon: english <TAB> simplified chinese <TAB> weight"
            " <TAB> source",
            "# Generated by scripts/build_lexicon.py; do not edit (edit glossary.tsv or the"
            " script, then rebuild).",
            "# Sources: glossary = search/data/glossary.tsv and category = catalog/data/"
            "categories.json (1.00);",
            "#   taxonomy = Google product taxonomy, en-US and zh-CN names joined on id"
            " (0.85-0.90);",
            f"#   cedict = CC-CEDICT ({date or 'undated'}, MDBG, https://cc-cedict.org/wiki/),"
            " CEDICT (C) 1997, 1998 Paul Andrew Denisowski,",
            "#   licensed CC BY-SA 4.0 (https://creativecommons.org/licenses/by-sa/4.0/): its"
            " lines are an adaptation",
            "#   under the same licence; weighted by how often the Chinese is used in real"
            " Taobao queries and titles.",
            "# Weight in (0, 1]: how sure the pair is. Lines are sorted by English term, then"
            " weight (highest first).",
        ]
    )


def write_lexicon(entries: Sequence[Entry], out: Path, date: str) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    body = "\n".join(entry.line() for entry in entries)
    out.write_text(f"{header(date)}\n{body}\n", encoding="utf-8")


# ---------------------------------------------------------------------------------------
# Coverage report.


def query_words(path: Path) -> set[str]:
    """Distinct lower-case alphabetic words (2+ letters, no stop words) of the first column."""
    words: set[str] = set()
    for number, line in enumerate(path.read_text("utf-8").splitlines()):
        if number == 0 and line.startswith("english_query"):
            continue
        for word in re.findall(r"[a-z]+", line.split("\t")[0].lower()):
            if len(word) >= 2 and word not in STOP_WORDS:
                words.add(word)
    return words


def report(entries: Sequence[Entry], glossary: Path, categories: Path, data_dir: Path) -> Report:
    """Counts of the built lexicon, and coverage of the dev queries' English words."""
    kinds = {PHRASE_RANK: "unseen phrases", REVERSE_RANK: "Chinese -> English only"}
    result = Report(
        by_source=Counter(entry.source for entry in entries),
        cedict_kinds=Counter(
            kinds.get(entry.rank, "ranked for the English term")
            for entry in entries
            if entry.source == "cedict"
        ),
        english_terms=len({entry.english for entry in entries}),
        chinese_terms=len({entry.chinese for entry in entries}),
        lines=len(entries),
    )
    dev = data_dir / "relevance" / "en_query_zh_hant_title" / "pairs.dev.tsv"
    if dev.is_file():
        words = query_words(dev)
        old = [english for english, _ in read_glossary(glossary)]
        old += [english for english, _ in read_category_pairs(categories)]
        for label, terms in (
            ("old glossary + categories", old),
            ("new lexicon", [entry.english for entry in entries]),
        ):
            single = {term for term in terms if " " not in term}
            keys = {english_key(term) for term in single}
            exact = sum(1 for word in words if word in single)
            analysed = sum(1 for word in words if english_key(word) in keys)
            result.coverage[f"dev query words, {label}, as written"] = (exact, len(words))
            result.coverage[f"dev query words, {label}, as search analyses them"] = (
                analysed,
                len(words),
            )
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--report", type=Path, help="also write the coverage report here")
    args = parser.parse_args(argv)
    if not (args.data_dir / "cc_cedict" / "cedict_ts.txt").is_file():
        parser.error(f"no CC-CEDICT under {args.data_dir}")
    entries, date = build(args.data_dir)
    write_lexicon(entries, args.out, date)
    text = report(entries, GLOSSARY, CATEGORIES, args.data_dir).text()
    text += f"file: {args.out} ({args.out.stat().st_size:,} bytes)\n"
    sys.stdout.write(text)
    if args.report:
        args.report.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
