"""Finding banned terms in text: folding, and one compiled pattern for the whole list.

Texts and terms are folded alike with the search analysis's `normalize`, character by
character (Unicode NFKC, so full-width ＡＢＣ is abc; lower case; invisible format characters
dropped; control characters as spaces), then Latin accents are dropped ("café" is "cafe") as
the analysis drops them from Latin words, Han runs are folded from traditional to simplified
Chinese with the analysis's OpenCC `t2s` (鋼筆 is 钢笔), and white space between two characters
of a script written without spaces (Han, kana, Hangul, Thai) is dropped ("象 牙" is 象牙). The
fold keeps each character's place in the original text, so a match is shown where the
supplier wrote it.

A term matches:
- where it starts or ends with a letter or digit of a script written with spaces (Latin,
  Cyrillic, Greek, Arabic...), only as a whole word there: "gun" matches "gun", "Guns" and
  "gun's", never "begun" or "gunsmith" (an English plural "s"/"es" is allowed at its end);
- where it starts or ends with a Han, kana, Hangul or Thai character, anywhere there: those
  scripts are written without spaces, so 象牙 matches 天然象牙雕刻;
- between its words, any punctuation or white space, or none ("tiger bone" matches
  "tiger-bone" and "tigerbone").

Every term of a list goes into one regular expression shaped like a trie (the terms'
common beginnings are written once), so a text is scanned once whatever the size of the
list: see docs/adr/0023-banned-terms.md for the numbers.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from tradepost.core.chinese_scripts import convert_script
from tradepost.search.analysis import normalize

#: Han ideographs (as the search analysis has them): folded from traditional to simplified.
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
#: Scripts written without spaces between words: a term there matches inside a run.
_UNSPACED = (
    _HAN + "\u0e00-\u0e7f"  # Thai
    "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"  # Hangul
    "\u3040-\u30ff\u31f0-\u31ff"  # kana
)
#: One letter or digit of a script written with spaces (a word character, not "_", not of
#: the scripts above): where a term must start and end as a whole word.
_WORD_CHAR = f"[^\\W_{_UNSPACED}]"
_WORD_CHAR_RE = re.compile(_WORD_CHAR)
_HAN_RE = re.compile(f"[{_HAN}]")
_HAN_RUN_RE = re.compile(f"[{_HAN}]+")
#: White space between two characters of the unspaced scripts (dropped)...
_UNSPACED_GAP_RE = re.compile(f"(?<=[{_UNSPACED}])\\s+(?=[{_UNSPACED}])")
#: ... and the places where such a character touches a letter or a digit of another script
#: (a space is put there, so that a whole word is a run of `\w` between non-`\w`).
_SCRIPT_CHANGE_RE = re.compile(
    f"(?<=[{_UNSPACED}])(?={_WORD_CHAR})|(?<={_WORD_CHAR})(?=[{_UNSPACED}])"
)
_SEPARATORS_RE = re.compile(r"\W+")
_UNSPACED_ONLY_RE = re.compile(f"[{_UNSPACED}]+")
_UNSPACED_RUN_RE = _UNSPACED_ONLY_RE
#: A run of letters and digits of the spaced scripts (after folding, a word), and a term made
#: only of such words, one space apart.
_WORD_RUN_RE = re.compile(f"{_WORD_CHAR}+")
_WORDS_ONLY_RE = re.compile(f"{_WORD_CHAR}+(?: {_WORD_CHAR}+)*")
#: What may separate two words of a term: no letter or digit of any script.
_GAP_RE = re.compile(r"\W*")
_LATIN_ACCENTED_RE = re.compile("[\u00c0-\u024f\u1e00-\u1eff]")

#: Between two words of a term: a little punctuation or white space, or nothing.
_BETWEEN_WORDS = r"\W{0,4}"
#: After a term that ends with a letter or a digit: an English plural, then no more letters.
#: (Categories, not character classes with ranges: those cost milliseconds each to compile,
#: and a list has one per term.)
_WORD_END = r"(?:e?s)?(?!\w)"

# The fold of each character seen, per process (a few thousand distinct characters).
_CHAR_MEMO: dict[str, str] = {}
_CHAR_MEMO_SIZE = 50_000


def _fold_char(char: str) -> str:
    category = unicodedata.category(char)
    if category == "Cf":  # zero-width space, joiners, direction marks, soft hyphen
        return ""
    if char.isspace() or category[0] == "C" or char == "_":  # controls, lone surrogates
        return " "
    folded = normalize(char, simplified=False).replace("_", " ") or " "
    if _LATIN_ACCENTED_RE.search(folded):
        decomposed = unicodedata.normalize("NFKD", folded)
        folded = "".join(c for c in decomposed if not unicodedata.combining(c)) or " "
    return folded


def _simplified(run: str) -> str:
    """A Han run in simplified characters, one for one (each character alone when the
    phrase conversion changes the length, which keeps places exact)."""
    converted = convert_script(run, written_in="zh-hant", reader="zh-hans")
    if len(converted) == len(run):
        return converted
    chars = []
    for char in run:
        one = convert_script(char, written_in="zh-hant", reader="zh-hans")
        chars.append(one if len(one) == 1 else char)
    return "".join(chars)


@dataclass(frozen=True)
class Folded:
    """A text folded for matching, and where each of its characters came from."""

    text: str
    #: The index in the original text of each folded character; None when it is the same.
    origins: list[int] | None

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original text's span of the folded span `start:end`."""
        if self.origins is None:
            return start, end
        return self.origins[start], self.origins[end - 1] + 1


def _drop_gaps(text: str, origins: list[int]) -> tuple[str, list[int]]:
    kept = [True] * len(text)
    for gap in _UNSPACED_GAP_RE.finditer(text):
        for index in range(gap.start(), gap.end()):
            kept[index] = False
    return (
        "".join(char for char, keep in zip(text, kept, strict=True) if keep),
        [origin for origin, keep in zip(origins, kept, strict=True) if keep],
    )


def _space_script_changes(text: str, origins: list[int]) -> tuple[str, list[int]]:
    chars: list[str] = []
    places: list[int] = []
    previous = 0
    for change in _SCRIPT_CHANGE_RE.finditer(text):
        at = change.start()
        chars.extend(text[previous:at])
        places.extend(origins[previous:at])
        chars.append(" ")
        places.append(origins[at - 1])
        previous = at
    chars.extend(text[previous:])
    places.extend(origins[previous:])
    return "".join(chars), places


def fold(text: str) -> Folded:
    """`text` folded as terms are (see the module's description)."""
    if text.isascii():
        return Folded(text.lower().replace("_", " "), None)
    memo = _CHAR_MEMO
    pieces = []
    for char in text:
        piece = memo.get(char)
        if piece is None:
            piece = _fold_char(char)
            if len(memo) < _CHAR_MEMO_SIZE:
                memo[char] = piece
        pieces.append(piece)
    folded = "".join(pieces)
    origins: list[int] | None = None
    if len(folded) != len(text):
        origins = [index for index, piece in enumerate(pieces) for _ in piece]
    if _HAN_RE.search(folded):
        folded = _HAN_RUN_RE.sub(lambda run: _simplified(run.group()), folded)
    if _UNSPACED_GAP_RE.search(folded):
        folded, origins = _drop_gaps(folded, origins or list(range(len(folded))))
    if _SCRIPT_CHANGE_RE.search(folded):
        folded, origins = _space_script_changes(folded, origins or list(range(len(folded))))
    return Folded(folded, origins)


def canonical(term: str) -> str:
    """The folded form of a term, its words separated by one space: "" when it holds no
    letter, digit or character to match."""
    folded = _SEPARATORS_RE.sub(" ", fold(term).text).strip()
    return _UNSPACED_GAP_RE.sub("", folded)


def _key(text: str) -> str:
    """A folded term or match without its separators: how a match finds its terms."""
    return _SEPARATORS_RE.sub("", text)


# --- the pattern of a list ------------------------------------------------------------------

_END = ""  # the trie's end-of-term mark (no character is empty)


def _trie(terms: Iterable[str]) -> dict[str, dict]:  # type: ignore[type-arg]
    root: dict[str, dict] = {}  # type: ignore[type-arg]
    for term in terms:
        node = root
        for char in term:
            node = node.setdefault(char, {})
        node[_END] = {}
    return root


def _pattern(node: dict[str, dict], previous: str = "") -> str:  # type: ignore[type-arg]
    """The trie under `node` as a pattern; `previous` is the character before it."""
    alternatives = []
    for char in sorted(node, key=lambda c: (c == _END, c)):  # longer terms first
        if char == _END:
            alternatives.append(_WORD_END if _WORD_CHAR_RE.match(previous) else "")
        else:
            atom = _BETWEEN_WORDS if char == " " else re.escape(char)
            alternatives.append(atom + _pattern(node[char], char))
    if len(alternatives) == 1:
        return alternatives[0]
    return "(?:" + "|".join(alternatives) + ")"


def list_pattern(forms: Iterable[str]) -> str:
    """The folded terms as one pattern: a trie (their common beginnings written once), the
    terms that start with a letter or a digit behind one check that a word starts there."""
    words: list[str] = []
    others: list[str] = []
    for form in forms:
        (words if _WORD_CHAR_RE.match(form[0]) else others).append(form)
    patterns = []
    if words:
        patterns.append(f"(?<!\\w)(?:{_pattern(_trie(words))})")
    if others:
        patterns.append(f"(?:{_pattern(_trie(others))})")
    return "|".join(patterns)


@dataclass(frozen=True)
class Match:
    """A term found in a text: the ids of the terms it matches (terms that fold alike), and
    the span in the original text."""

    term_ids: tuple[int, ...]
    start: int
    end: int


#: At most this many characters (none a letter or a digit) between two words of a term.
_MAX_GAP = 4


class TermMatcher:
    """A list of terms, ready to find them in texts. `terms` are (id, folded form) pairs.

    Three kinds of terms, each found in one pass over a text whatever the size of the list:
    - words of the spaced scripts ("gun", "tiger bone"): the text's words are looked up in a
      dictionary, one or two look-ups a word (more where a word starts a term of several);
    - terms only in the unspaced scripts (most Chinese terms): looked up at each character of
      each run of those scripts, by the lengths the terms starting with it have;
    - the others, both kinds of script in one term ("AK47步枪"): one pattern
      (`list_pattern`), the text scanned with it once.
    """

    def __init__(self, terms: Iterable[tuple[int, str]]) -> None:
        by_key: dict[str, list[int]] = {}
        forms = set()
        for term_id, form in terms:
            if form:
                forms.add(form)
                by_key.setdefault(_key(form), []).append(term_id)
        self._by_key = {key: tuple(ids) for key, ids in by_key.items()}
        self.size = len(forms)
        lengths: dict[str, set[int]] = {}
        unspaced: set[str] = set()
        word_keys: set[str] = set()
        self._first_words: dict[str, int] = {}  # first word of a term of several -> most words
        patterned = []
        for form in forms:
            if _UNSPACED_ONLY_RE.fullmatch(form):
                unspaced.add(form)
                lengths.setdefault(form[0], set()).add(len(form))
            elif _WORDS_ONLY_RE.fullmatch(form):
                words = form.split(" ")
                word_keys.add("".join(words))
                if len(words) > 1:
                    most = self._first_words.get(words[0], 0)
                    self._first_words[words[0]] = max(most, len(words))
            else:
                patterned.append(form)
        self._unspaced = frozenset(unspaced)
        self._lengths = {char: sorted(found, reverse=True) for char, found in lengths.items()}
        self._word_keys = frozenset(word_keys)
        #: The words that may be (or end) a term: its key, and the key with a plural.
        self._word_forms = frozenset(
            form for key in word_keys for form in (key, key + "s", key + "es")
        )
        self._regex = re.compile(list_pattern(patterned)) if patterned else None

    def __bool__(self) -> bool:
        return bool(self._regex is not None or self._unspaced or self._word_keys)

    def _ids(self, matched: str) -> tuple[int, ...]:
        key = _key(matched)
        for candidate in (key, key[:-1], key[:-2]):  # the match, or it without a plural
            found = self._by_key.get(candidate)
            if found:
                return found
        return ()

    def _word_matches(self, text: str) -> Iterator[tuple[int, int]]:
        """(start, end) of the word terms in folded `text`, longest first, no overlaps."""
        tokens = _WORD_RUN_RE.findall(text)
        forms, firsts = self._word_forms, self._first_words
        if forms.isdisjoint(tokens) and firsts.keys().isdisjoint(tokens):
            return  # the common case, decided by two set operations
        candidates = [i for i, word in enumerate(tokens) if word in forms or word in firsts]
        spans = [found.span() for found in _WORD_RUN_RE.finditer(text)]
        count, done = len(tokens), 0
        for index in candidates:
            if index < done:
                continue
            step = 0
            most = firsts.get(tokens[index], 0)
            if most > 1:
                joined, last = [tokens[index]], spans[index][1]
                reach = []  # (number of words, key) of each longer run of words
                for following in range(index + 1, min(index + most, count)):
                    begin = spans[following][0]
                    if begin - last > _MAX_GAP or not _GAP_RE.fullmatch(text, last, begin):
                        break
                    joined.append(tokens[following])
                    reach.append((following - index + 1, "".join(joined)))
                    last = spans[following][1]
                for size, key in reversed(reach):
                    if key in forms:
                        step = size
                        break
            if not step and tokens[index] in forms:
                step = 1
            if step:
                yield spans[index][0], spans[index + step - 1][1]
                done = index + step

    def _unspaced_matches(self, text: str) -> Iterator[tuple[int, int]]:
        """(start, end) of the unspaced terms in folded `text`, longest first, no overlaps."""
        lengths, terms = self._lengths, self._unspaced
        for run in _UNSPACED_RUN_RE.finditer(text):
            index, end = run.start(), run.end()
            while index < end:
                step = 1
                for length in lengths.get(text[index], ()):
                    if index + length <= end and text[index : index + length] in terms:
                        yield index, index + length
                        step = length
                        break
                index += step

    def find(self, text: str) -> Iterator[Match]:
        """The terms in `text`, in the order they appear; where terms of one kind overlap,
        the longest."""
        if not self or not text:
            return
        folded = fold(text)
        spans: list[tuple[int, int]] = []
        if self._word_keys:
            spans.extend(self._word_matches(folded.text))
        if self._unspaced:
            spans.extend(self._unspaced_matches(folded.text))
        if self._regex is not None:
            spans.extend(found.span() for found in self._regex.finditer(folded.text))
        for start, end in sorted(spans):
            ids = self._ids(folded.text[start:end])
            if ids:
                original = folded.span(start, end)
                yield Match(ids, original[0], original[1])
