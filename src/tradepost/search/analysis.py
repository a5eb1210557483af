"""The text-analysis pipeline shared by indexing and querying.

One function per field, all built on `normalize`:

- `analyze_words` gives the tokens of the precise "words" field: Chinese runs are segmented
  with rjieba (plus the project's dictionary of trade terms), Latin runs are split into
  words and stemmed with the Snowball English stemmer, numbers keep their units ("12v",
  "500ml", "3.5mm").
- `analyze_cjk_grams` gives the character unigrams and bigrams of every Chinese run for the
  recall field, so a query still matches a title that the segmenter cut differently.
- `analyze_query` runs both on a user's query, picks out quoted phrases and the raw Latin
  words for a fuzzy retry, and never raises on hostile input.

docs/adr/0005-text-analysis.md explains the choices. Everything heavy (the OpenCC
converter, the segmenter with its dictionary, the stemmer) is loaded once per process.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

import opencc
import rjieba
import Stemmer

from tradepost.core.cleaning import storable

#: Queries longer than this (after normalisation) are cut: nobody types more, and it bounds
#: the work a single request can cause.
MAX_QUERY_CHARS = 200

#: Raw input longer than this is cut before normalisation, whatever the caller.
_MAX_RAW_QUERY_CHARS = MAX_QUERY_CHARS * 4

# Han ideographs: CJK Unified Ideographs, Extension A, compatibility ideographs (NFKC folds
# most of these) and the supplementary-plane extensions B to F.
_CJK_CLASS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
_CJK_RUN_RE = re.compile(f"([{_CJK_CLASS}]+)")
_HAS_CJK_RE = re.compile(f"[{_CJK_CLASS}]")

# What no text may hold (NUL, lone surrogates: OpenCC and the databases would raise) becomes
# spaces by the one rule, `core.cleaning.storable`; so do the other C0/C1 control characters;
# invisible format characters (zero-width space, joiners, direction marks, BOM, soft hyphen)
# are dropped.
_CONTROL_RE = re.compile("[\x01-\x1f\x7f-\x9f]")
_FORMAT_RE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
_SPACES_RE = re.compile(r"\s+")

# Units a number keeps when written apart ("500 ml" -> "500ml"). Deliberately no "a", "in"
# or "k": "3 in 1", "2 a day" are words, not measurements.
_SPACED_UNITS = (
    "mm|cm|m|km|ml|l|kg|g|mg|lb|lbs|oz|v|kv|w|kw|mw|kwh|mah|ah|hz|khz|mhz|ghz|"
    "gb|tb|mb|inch|inches|ft|pcs|pc|rpm|psi|bar|mpa|db|lm|mp|t|tons|cc|nm|um|μm"
)
# A Latin token: letters and digits, with decimal parts kept ("3.5mm", "usb3.0"), or a number
# followed by a spaced unit.
_LATIN_TOKEN_RE = re.compile(
    rf"\d+(?:\.\d+)?\s(?:{_SPACED_UNITS})(?![^\W_])|[^\W_]+(?:\.\d+[^\W_]*)*"
)
_POSSESSIVE_RE = re.compile(r"(?<=[^\W\d_])['’]s\b")
_NUMBER_UNIT_RE = re.compile(r"(\d+(?:\.\d+)?)\s?([a-zμ]+)")
_ASCII_LETTERS_RE = re.compile(r"[a-z]+")
_LATIN_ACCENTED_RE = re.compile("[\u00c0-\u024f\u1e00-\u1eff]")

# One spelling of each unit, so "12 inch", "12inch" and "12in" meet.
_UNIT_ALIASES = {
    "inch": "in",
    "inches": "in",
    "ltr": "l",
    "litre": "l",
    "litres": "l",
    "liter": "l",
    "liters": "l",
    "kgs": "kg",
    "lbs": "lb",
    "pc": "pcs",
    "mtr": "m",
    "μm": "um",
    "tons": "t",
}

# Chinese units written after a number ("500毫升" -> "500ml"), longest first.
_CJK_UNITS = (
    ("毫安时", "mah"),
    ("毫升", "ml"),
    ("毫米", "mm"),
    ("厘米", "cm"),
    ("公斤", "kg"),
    ("千克", "kg"),
    ("毫安", "mah"),
    ("千瓦", "kw"),
    ("英寸", "in"),
    ("公里", "km"),
    ("寸", "in"),
    ("米", "m"),
)
# 米色, 米白, 米黄, 米灰 are colours (beige, off-white...), not metres.
_CJK_UNIT_RE = re.compile("^(?:" + "|".join(u for u, _ in _CJK_UNITS) + ")(?<!米(?=[色白黄灰]))")
_CJK_UNIT_MAP = dict(_CJK_UNITS)

# Function words that only add noise to matching (and would make an all-terms query fail on
# "case for iphone" against "iPhone case"). Applied at index and query time alike.
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "not",
        "the",
        "to",
        "with",
        "without",
        "this",
        "that",
        "these",
        "those",
        "our",
        "your",
        "we",
        "you",
    ]
)
_CJK_STOPWORDS = frozenset(["的", "了", "之"])
_CJK_STOP_RE = re.compile("[的了之]")

# British -> American spellings common in trade, folded after stemming so plurals fold too.
_SPELLING_VARIANTS = (
    ("colour", "color"),
    ("colours", "colors"),
    ("coloured", "colored"),
    ("colourful", "colorful"),
    ("aluminium", "aluminum"),
    ("grey", "gray"),
    ("tyre", "tire"),
    ("moulding", "molding"),
    ("mould", "mold"),
    ("moulded", "molded"),
    ("jewellery", "jewelry"),
    ("metre", "meter"),
    ("litre", "liter"),
    ("centre", "center"),
    ("fibre", "fiber"),
    ("theatre", "theater"),
    ("catalogue", "catalog"),
    ("favour", "favor"),
    ("flavour", "flavor"),
    ("flavours", "flavors"),
    ("odour", "odor"),
    ("harbour", "harbor"),
    ("armour", "armor"),
    ("vapour", "vapor"),
    ("labour", "labor"),
    ("plough", "plow"),
    ("pyjamas", "pajamas"),
    ("sulphur", "sulfur"),
    ("aeroplane", "airplane"),
    ("cheque", "check"),
    ("kerb", "curb"),
    ("storey", "story"),
    ("woollen", "woolen"),
    ("programme", "program"),
    ("customise", "customize"),
    ("customised", "customized"),
    ("personalised", "personalized"),
    ("organiser", "organizer"),
    ("organisers", "organizers"),
    ("sanitiser", "sanitizer"),
    ("sterilised", "sterilized"),
    ("steriliser", "sterilizer"),
    ("atomiser", "atomizer"),
    ("vaporiser", "vaporizer"),
    ("moisturiser", "moisturizer"),
    ("fertiliser", "fertilizer"),
    ("stabiliser", "stabilizer"),
    ("equaliser", "equalizer"),
    ("galvanised", "galvanized"),
    ("polarised", "polarized"),
    ("pressurised", "pressurized"),
    ("deodoriser", "deodorizer"),
    ("appetiser", "appetizer"),
    ("tenderiser", "tenderizer"),
    ("synthesiser", "synthesizer"),
    ("optimised", "optimized"),
    ("standardised", "standardized"),
    ("analyser", "analyzer"),
    ("tonne", "ton"),
    ("disc", "disk"),
    ("draught", "draft"),
    ("nappy", "diaper"),
    ("nappies", "diapers"),
)

# Words the Snowball stemmer cuts too far or inconsistently for product search.
_STEM_EXCEPTIONS = {
    "leggings": "legging",
    "legging": "legging",
    "lens": "lens",
    "lenses": "lens",
    "glasses": "glasses",
    "sunglasses": "sunglasses",
    "goggles": "goggles",
    "news": "news",
    "gas": "gas",
    "gases": "gas",
    "series": "series",
    "species": "species",
    "chassis": "chassis",
    "jeans": "jeans",
    "pants": "pants",
    "shorts": "shorts",
    "trousers": "trousers",
    "scissors": "scissors",
    "pliers": "pliers",
    "tongs": "tongs",
    "tweezers": "tweezers",
    "clothes": "clothes",
    "clothing": "clothing",
    "bedding": "bedding",
    "flooring": "flooring",
    "roofing": "roofing",
    "packaging": "packaging",
    "fitting": "fitting",
    "fittings": "fitting",
    "printing": "printing",
    "lighting": "lighting",
    "ceiling": "ceiling",
    "ceilings": "ceiling",
    "casting": "casting",
    "castings": "casting",
    "forging": "forging",
    "forgings": "forging",
    "bearing": "bearing",
    "bearings": "bearing",
    "coating": "coating",
    "coatings": "coating",
}


@dataclass(frozen=True)
class AnalyzedQuery:
    """A user's query, analysed the way documents are.

    `words` and `grams` are de-duplicated, in query order. `phrases` holds the word tokens of
    each quoted part (one list per quote). `latin_terms` are the unstemmed Latin words, for a
    fuzzy retry when nothing matched.
    """

    words: list[str] = field(default_factory=list)
    grams: list[str] = field(default_factory=list)
    phrases: list[list[str]] = field(default_factory=list)
    latin_terms: list[str] = field(default_factory=list)
    is_empty: bool = True
    #: The normalised (folded, truncated) query text.
    text: str = ""
    #: The same in the script the user typed (no traditional-to-simplified folding).
    typed: str = ""


# ---------------------------------------------------------------------------------------
# Heavy resources, loaded once per process.


@cache
def _t2s() -> Any:
    return opencc.OpenCC("t2s")


@cache
def _stemmer() -> Any:
    stemmer = Stemmer.Stemmer("english")
    stemmer.maxCacheSize = 50_000
    return stemmer


@cache
def _spelling_map() -> dict[str, str]:
    """Stem of the British form -> stem of the American form."""
    stemmer = _stemmer()
    folded: dict[str, str] = {}
    for british, american in _SPELLING_VARIANTS:
        folded[stemmer.stemWord(british)] = stemmer.stemWord(american)
    return folded


def user_dictionary_words() -> list[str]:
    """The trade terms the segmenter must keep whole, from the shipped dictionary file."""
    text = resources.files("tradepost.search").joinpath("data/trade_terms.txt").read_text("utf-8")
    words = []
    for line in text.splitlines():
        word = line.split("#", 1)[0].strip()
        if word:
            words.append(word)
    return words


@cache
def _segmenter() -> Any:
    """rjieba's process-wide segmenter with the trade-term dictionary added to its own.

    rjieba builds one segmenter when it is imported; a second instance would cost another
    ~25 MB per process, so the dictionary is added to that one (through rjieba's module
    functions). rjieba cannot read a user-dictionary file, but `add_word` with no frequency
    asks the segmenter for the frequency that makes the word win, which is what jieba's
    `load_userdict` does for entries without one.
    """
    for word in user_dictionary_words():
        rjieba.add_word(normalize(word), None, None)
    return rjieba


def warm_up() -> None:
    """Load the converter, the segmenter and the stemmer now rather than on first use."""
    analyze_words("warm up 预热")


# ---------------------------------------------------------------------------------------
# Normalisation.


def normalize(text: str, *, simplified: bool = True) -> str:
    """Fold `text` to the form every field is built from.

    Lone surrogates and control characters become spaces, invisible format characters go,
    then Unicode NFKC (full-width ＬＥＤ/１２Ｖ to ASCII, ligatures, circled digits), lower
    case, and traditional to simplified Chinese (OpenCC "t2s"; not with `simplified=False`,
    for showing the user's own words back). Runs of white space collapse to one space.
    Never raises for any `str`.
    """
    if not text:
        return ""
    text = _CONTROL_RE.sub(" ", storable(text, nul=" ", surrogate=" "))
    if not text.isascii():
        text = _FORMAT_RE.sub("", text)
        text = unicodedata.normalize("NFKC", text)
        # NFKC can itself produce control characters (e.g. from compatibility forms).
        text = _CONTROL_RE.sub(" ", text)
        if simplified and _HAS_CJK_RE.search(text):
            text = _t2s().convert(text)
    text = text.lower()
    return _SPACES_RE.sub(" ", text).strip()


# ---------------------------------------------------------------------------------------
# Tokenisation.


def _fold_accents(word: str) -> str:
    if not _LATIN_ACCENTED_RE.search(word):
        return word
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _latin_token(raw: str) -> str | None:
    """The indexed form of one Latin-run token, or None when it carries no meaning."""
    if raw[0].isdigit():
        match = _NUMBER_UNIT_RE.fullmatch(raw)
        if match:
            number, unit = match.groups()
            return number + _UNIT_ALIASES.get(unit, unit)
        return raw
    if raw in _STOPWORDS:
        return None
    if not raw.isascii():
        raw = _fold_accents(raw)
        if not raw.isascii():
            return raw  # another script (Cyrillic, kana, Hangul...): kept as written
    if not raw.isalpha():
        return raw  # model numbers such as "usb3.0", "m8", "iphone15"
    exception = _STEM_EXCEPTIONS.get(raw)
    if exception is not None:
        return exception
    stem = _stemmer().stemWord(raw)
    return _spelling_map().get(stem, stem)


# Raw Latin token -> indexed form ("" when dropped). Product text is Zipfian, so a bounded
# per-process memo makes the Latin path one dictionary lookup per token.
_LATIN_MEMO: dict[str, str] = {}
_LATIN_MEMO_SIZE = 100_000


def _latin_tokens(segment: str, out: list[str]) -> None:
    if "'" in segment or "’" in segment:
        segment = _POSSESSIVE_RE.sub("", segment)
    memo = _LATIN_MEMO
    for raw in _LATIN_TOKEN_RE.findall(segment):
        token = memo.get(raw)
        if token is None:
            token = _latin_token(raw.replace(" ", "")) or ""
            if len(memo) < _LATIN_MEMO_SIZE:
                memo[raw] = token
        if token:
            out.append(token)


# Han run -> its words (after the stop characters); Han run -> its unigrams and bigrams.
# Product text repeats the same runs (不锈钢, 保温杯, 厂家直销) in ever new sentences, so the
# segmenter and the gram loop each see a run once per process. Bounded; cleared when full.
_CUT_MEMO: dict[str, list[str]] = {}
_GRAM_MEMO: dict[str, list[str]] = {}
_CUT_MEMO_SIZE = 200_000


def _split_number_unit(out: list[str], run: str) -> str:
    """Attach a Chinese unit that follows a number ("500" + "毫升…" -> "500ml" + "…")."""
    if out and (out[-1].isdigit() or _is_decimal(out[-1])):
        match = _CJK_UNIT_RE.match(run)
        if match:
            unit = match.group()
            out[-1] += _CJK_UNIT_MAP[unit]
            return run[len(unit) :]
    return run


def _is_decimal(token: str) -> bool:
    whole, dot, fraction = token.partition(".")
    return bool(dot) and whole.isdigit() and fraction.isdigit()


def _word_tokens(normalized: str, parts: list[str] | None = None) -> list[str]:
    """Tokens of already-normalised text (see `analyze_words`); `parts` is the text split
    by `_CJK_RUN_RE` when the caller has it."""
    out: list[str] = []
    if not normalized:
        return out
    if parts is None:
        parts = _CJK_RUN_RE.split(normalized)
    if len(parts) == 1:
        _latin_tokens(normalized, out)
        return out
    cut = _segmenter().cut
    memo = _CUT_MEMO
    # re.split with one group alternates: non-CJK, CJK, non-CJK, ... (first and last may be "").
    for index in range(0, len(parts), 2):
        latin = parts[index]
        if latin and not latin.isspace():
            _latin_tokens(latin, out)
        if index + 1 == len(parts):
            break
        run = parts[index + 1]
        if latin and latin[-1].isdigit():
            run = _split_number_unit(out, run)
            if not run:
                continue
        words = memo.get(run)
        if words is None:
            words = cut(run, False)
            if _CJK_STOP_RE.search(run):
                words = [word for word in words if word not in _CJK_STOPWORDS]
            if len(memo) >= _CUT_MEMO_SIZE:
                memo.clear()
            memo[run] = words
        out.extend(words)
    return out


def analyze_words(text: str) -> list[str]:
    """Tokens for the precise "words" field.

    Chinese runs are segmented with rjieba and the trade-term dictionary ("不锈钢保温杯" ->
    "不锈钢", "保温杯"); Latin runs are split into words, stemmed ("flasks" -> "flask") and
    British spellings folded ("colour" -> "color"); numbers keep their unit ("12V" -> "12v",
    "500 ml" and "500毫升" -> "500ml", "3.5mm"). No token is empty or contains white space.
    """
    return _word_tokens(normalize(text))


def _gram_tokens(normalized: str) -> list[str]:
    return _run_grams(_CJK_RUN_RE.findall(normalized))


def _run_grams(runs: list[str]) -> list[str]:
    out: list[str] = []
    memo = _GRAM_MEMO
    for run in runs:
        grams = memo.get(run)
        if grams is None:
            grams = [*run, *map(str.__add__, run, run[1:])]
            if len(memo) >= _CUT_MEMO_SIZE:
                memo.clear()
            memo[run] = grams
        out.extend(grams)
    return out


def analyze_cjk_grams(text: str) -> list[str]:
    """Character unigrams, then bigrams, of each Chinese run (the recall field).

    "保温杯" -> ["保", "温", "杯", "保温", "温杯"]. Unigrams and bigrams each keep their order,
    so consecutive bigrams of one run sit at consecutive positions. [] for text with no Han
    characters.
    """
    normalized = normalize(text)
    if not _HAS_CJK_RE.search(normalized):
        return []
    return _gram_tokens(normalized)


def analyze_fields(text: str) -> tuple[list[str], list[str]]:
    """`(analyze_words(text), analyze_cjk_grams(text))`, normalising once (for indexing)."""
    normalized = normalize(text)
    parts = _CJK_RUN_RE.split(normalized)
    # re.split with one group: the CJK runs are at the odd indices.
    grams = _run_grams(parts[1::2]) if len(parts) > 1 else []
    return _word_tokens(normalized, parts), grams


# Where a text can be cut without changing its tokens: after Chinese punctuation (full
# stops, commas, the enumeration comma, colons), after Latin punctuation followed by white
# space, and at line breaks. No token,
# segmenter run, number-unit pair or traditional-to-simplified phrase spans such a cut.
_PIECE_BREAK_RE = re.compile(r"(?<=[。！？；，、：])|(?<=[.!?;:,])\s+|\n+")
#: Texts shorter than this are analysed whole.
_PIECE_MIN_TEXT = 80


_WHITE_SPACE_RE = re.compile(r"\s+")


def word_chunks(text: str) -> list[str]:
    """`text` cut at the white space that follows a letter.

    No token spans such a cut: the only tokens holding white space are a number and its
    unit ("500 ml"), whose space follows a digit; Han runs, stems and stop words end at
    white space. (A letter, `str.isalpha`, is never a digit after normalisation: "²" and
    "①" are not letters.)
    """
    chunks = []
    start = 0
    for match in _WHITE_SPACE_RE.finditer(text):
        end = match.start()
        if end > start and text[end - 1].isalpha():
            chunks.append(text[start:end])
            start = match.end()
    if start < len(text):
        chunks.append(text[start:])
    return chunks


class PieceCache:
    """Analysis of long texts (descriptions) piece by piece, each distinct piece once.

    Descriptions are written from templates and pasted across a supplier's listings, so
    most of their sentences repeat even when the whole text does not. A sentence seen for
    the first time (and every title, each one new) is analysed word chunk by word chunk
    (`word_chunks`), each distinct chunk once: "Stainless", "steel", "flask" and
    "不锈钢保温杯" come back in sentence after sentence. `fields(text)` gives exactly
    `analyze_fields(text)`: the text is only cut where no token can span the cut. The
    memos are bounded (cleared when full) and belong to one indexing run or process.
    """

    def __init__(self, max_entries: int = 200_000) -> None:
        self.max_entries = max_entries
        self._memo: dict[str, tuple[list[str], list[str]]] = {}
        self._chunks: dict[str, tuple[list[str], list[str]]] = {}
        self._bigrams: dict[str, tuple[list[str], list[str]]] = {}

    def _piece(self, piece: str) -> tuple[list[str], list[str]]:
        found = self._memo.get(piece)
        if found is None:
            if len(self._memo) >= self.max_entries:
                self._memo.clear()
            found = self._memo[piece] = self._chunked(piece)
        return found

    def _chunked(self, piece: str) -> tuple[list[str], list[str]]:
        chunks = word_chunks(piece)
        if len(chunks) == 1:
            return analyze_fields(piece)
        memo = self._chunks
        words: list[str] = []
        grams: list[str] = []
        for chunk in chunks:
            found = memo.get(chunk)
            if found is None:
                if len(memo) >= self.max_entries:
                    memo.clear()
                found = memo[chunk] = analyze_fields(chunk)
            words.extend(found[0])
            grams.extend(found[1])
        return words, grams

    def _bigram_piece(self, piece: str) -> tuple[list[str], list[str]]:
        found = self._bigrams.get(piece)
        if found is None:
            if len(self._bigrams) >= self.max_entries:
                self._bigrams.clear()
            words, grams = self._piece(piece)
            found = self._bigrams[piece] = (words, [g for g in grams if len(g) == 2])
        return found

    def fields(self, text: str, *, bigrams_only: bool = False) -> tuple[list[str], list[str]]:
        """`analyze_fields(text)`; with `bigrams_only`, the grams without the unigrams."""
        if not text:
            return [], []
        analyse = self._bigram_piece if bigrams_only else self._piece
        if len(text) < _PIECE_MIN_TEXT:
            return analyse(text)
        words: list[str] = []
        grams: list[str] = []
        for piece in _PIECE_BREAK_RE.split(text):
            if piece:
                piece_words, piece_grams = analyse(piece)
                words.extend(piece_words)
                grams.extend(piece_grams)
        return words, grams


# ---------------------------------------------------------------------------------------
# Queries.

# Quote characters users type, after NFKC (which folds the full-width ＂ to ").
_QUOTES_RE = re.compile('["“”„«»「」『』]')


def _unique(tokens: list[str]) -> list[str]:
    return list(dict.fromkeys(tokens))


def _quoted_parts(text: str) -> list[str]:
    """The text between pairs of quotes; an unpaired last quote is ignored."""
    pieces = _QUOTES_RE.split(text)
    # Odd-numbered pieces are inside quotes; the last piece is inside only if closed.
    return [pieces[i] for i in range(1, len(pieces) - 1, 2)]


def _latin_terms(normalized: str) -> list[str]:
    terms = []
    for part in _CJK_RUN_RE.split(normalized)[::2]:
        for word in _ASCII_LETTERS_RE.findall(_fold_accents(_POSSESSIVE_RE.sub("", part))):
            if word not in _STOPWORDS:
                terms.append(word)
    return _unique(terms)


def analyze_query(text: str) -> AnalyzedQuery:
    """Analyse a user's query for both fields. Never raises for any `str`.

    The query is cut to `MAX_QUERY_CHARS` after normalisation. Query-language syntax is not
    interpreted: `*`, `:`, `(`, `)` are punctuation and AND/OR/NOT are ordinary (stop)
    words; only double quotes mean something (a phrase).
    """
    if not isinstance(text, str):
        return AnalyzedQuery()
    raw = text[:_MAX_RAW_QUERY_CHARS]
    normalized = normalize(raw)[:MAX_QUERY_CHARS]
    # A cut can leave half of a "number space unit" pair; that is harmless.
    words = _unique(_word_tokens(normalized))
    grams = _unique(_gram_tokens(normalized)) if _HAS_CJK_RE.search(normalized) else []
    phrases = []
    for part in _quoted_parts(normalized):
        tokens = _word_tokens(part.strip())
        if tokens:
            phrases.append(tokens)
    return AnalyzedQuery(
        words=words,
        grams=grams,
        phrases=phrases,
        latin_terms=_latin_terms(normalized),
        is_empty=not words and not grams,
        text=normalized,
        typed=normalize(raw, simplified=False)[:MAX_QUERY_CHARS]
        if _HAS_CJK_RE.search(normalized)
        else normalized,
    )


def query_words(text: str, *, limit: int = 8, max_length: int = 40) -> list[str]:
    """The words of a query as a person reads them, for telling suppliers which words found
    their listings (`insights`): normalised like the index (NFKC, lower case, traditional
    Chinese folded to simplified, so 鋼筆 and 钢笔 are one word), Chinese runs segmented,
    Latin words kept unstemmed, numbers with their unit ("500ml"), stop words dropped; each
    word once, in query order, at most `limit` of them, none longer than `max_length`.
    Never raises for any `str`."""
    if not isinstance(text, str):
        return []
    normalized = normalize(text[:_MAX_RAW_QUERY_CHARS])[:MAX_QUERY_CHARS]
    parts = _CJK_RUN_RE.split(normalized)
    words: list[str] = []
    for index, part in enumerate(parts):
        if index % 2:  # a Chinese run (re.split with one group: odd indices)
            words.extend(_word_tokens(part))
            continue
        part = _POSSESSIVE_RE.sub("", part) if ("'" in part or "’" in part) else part
        for raw in _LATIN_TOKEN_RE.findall(part):
            raw = raw.replace(" ", "")
            match = _NUMBER_UNIT_RE.fullmatch(raw) if raw[0].isdigit() else None
            if match:
                number, unit = match.groups()
                raw = number + _UNIT_ALIASES.get(unit, unit)
            elif raw in _STOPWORDS:
                continue
            words.append(_fold_accents(raw))
    return [word for word in _unique(words) if len(word) <= max_length][:limit]
