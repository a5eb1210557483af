"""Text that looks garbled ("mojibake"): what a catalogue upload flags, cell by cell, with a
suggestion where the damage can be undone (docs/adr/0027-catalogue-import.md), and what machine
translation leaves as it is. Nothing is ever changed here: the import's preview shows the
flag and the suggestion, and the supplier fixes the file.

Three kinds of damage are recognised:

- text in UTF-8 that was read as a Western code page (Windows-1252, Latin-1) and saved again:
  "ä¸\x8dé”ˆé’¢" for 不锈钢. `ftfy` finds and undoes it;
- Chinese text read in the wrong Chinese encoding and saved again: UTF-8 read as GBK
  (涓嶉攬閽), GBK read as Big5 or the other way round, GBK or Big5 read as Latin-1 (²»Ðâ¸Ö).
  Such text is mostly made of characters outside the few thousand in everyday use (GB2312's
  first level and Big5's frequent characters); it is flagged when at least `RARE_SHARE` of its
  Chinese characters are, and the suggestion is the reading back through the two encodings
  that gives everyday characters again, when one does;
- characters already lost: U+FFFD (what a decoder writes for bytes it could not read) and
  锟斤拷 (the same, once more through the wrong encoding), invisible control characters and
  private-use characters (bytes mapped to nothing real), runs of question marks among Chinese
  characters (what a converter writes for characters its target encoding lacks: "?！瘪R"),
  and pinyin left in brackets by a converter (業(yè)): flagged, with the brackets' removal as
  the suggestion for the last.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from enum import StrEnum
from functools import cache

import ftfy

#: A text is suspicious when at least this share of its Chinese characters, and at least
#: RARE_COUNT of them, are outside everyday use. Real product titles stay below (tests/imports:
#: 20,000 titles from ../shared/data); text read in the wrong Chinese encoding mostly lies above.
RARE_SHARE = 0.4
RARE_COUNT = 3
#: A repair is suggested only when at most this share of its Chinese characters are rare.
PLAUSIBLE_SHARE = 0.15

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_TONED = "āáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜ"
_PINYIN = re.compile(rf"(?<=[\u4e00-\u9fff])[(（][a-zü{_TONED}]*[{_TONED}][a-zü{_TONED}]*[)）]")
#: Runs of question marks (a converter's stand-in for characters it could not write), the
#: famous 锟斤拷 (U+FFFD written in UTF-8 and read as GBK), C1 control characters and private
#: use characters (bytes a decoder mapped to nothing real).
_LOST = re.compile(r"\?{2,}|\?(?=[\u3400-\u9fff\uff00-\uffef])|锟斤拷")
_DEBRIS = re.compile(r"[\u0080-\u009f\ue000-\uf8ff]")
#: What `ftfy.is_bad` can find only in a text holding one of these: every character its
#: expression names lies among them (tests/imports/test_garbled.py reads the expression). A
#: text of ASCII and Chinese alone (most cells of a Chinese catalogue) skips it: a third of
#: the check of such a cell.
_MAYBE_BAD = re.compile(r"[\u0080-\u2fff\uf8ff\ufb01\ufb02\ufffd]")
#: (the encoding the text was wrongly read in, the one it was written in)
_REPAIRS = (
    ("gb18030", "utf-8"),  # UTF-8 read as GBK
    ("big5", "utf-8"),  # UTF-8 read as Big5
    ("big5", "gb18030"),  # GBK read as Big5
    ("gb18030", "big5"),  # Big5 read as GBK
    ("latin-1", "gb18030"),  # GBK read as Latin-1
    ("cp1252", "gb18030"),  # GBK read as Windows-1252
    ("latin-1", "big5"),
    ("cp1252", "big5"),
)


class Damage(StrEnum):
    MOJIBAKE = "mojibake"  # read in the wrong encoding; maybe undone by the suggestion
    LOST = "lost"  # characters lost for good (U+FFFD, "??")
    PINYIN = "pinyin"  # pinyin in brackets left by a converter


@dataclass(frozen=True)
class Garbled:
    damage: Damage
    suggestion: str | None  # the text repaired, when it can be


@cache
def everyday_characters() -> frozenset[str]:
    """GB2312's first level (3,755 characters) and Big5's frequent characters (5,401)."""
    found: set[str] = set()
    for high in range(0xB0, 0xD8):
        for low in range(0xA1, 0xFF):
            with contextlib.suppress(UnicodeDecodeError):
                found.add(bytes([high, low]).decode("gb2312"))
    for high in range(0xA4, 0xC7):
        for low in (*range(0x40, 0x7F), *range(0xA1, 0xFF)):
            with contextlib.suppress(UnicodeDecodeError):
                found.add(bytes([high, low]).decode("big5"))
    return frozenset(found)


def rare_share(text: str) -> tuple[float, int]:
    """The share of the text's Chinese characters outside everyday use, and their number."""
    han = _HAN.findall(text)
    if not han:
        return 0.0, 0
    common = everyday_characters()
    return sum(1 for char in han if char not in common) / len(han), len(han)


def _suspicious(share: float, han: int) -> bool:
    return share >= RARE_SHARE and share * han >= RARE_COUNT - 0.001


def _plausible(text: str, *, than: float) -> bool:
    if "\ufffd" in text or any(ord(char) < 32 and char not in "\t\n" for char in text):
        return False
    share, han = rare_share(text)
    return han > 0 and share <= PLAUSIBLE_SHARE and share < than


def _repair(text: str, share: float) -> str | None:
    for read_as, written_in in _REPAIRS:
        try:
            repaired = text.encode(read_as).decode(written_in)
        except (UnicodeEncodeError, UnicodeDecodeError):
            continue
        if repaired != text and _plausible(repaired, than=share):
            return repaired
    return None


def check_text(text: str) -> Garbled | None:
    """What looks wrong with `text`, if anything, and its repair when there is one."""
    if not text or text.isascii():
        return None
    if "\ufffd" in text:
        return Garbled(Damage.LOST, None)
    bad = _MAYBE_BAD.search(text) is not None and ftfy.is_bad(text)
    if bad:
        # A repair joins several characters into one: a fix as long as the text is none.
        fixed = ftfy.fix_encoding(text)
        if len(fixed) < len(text) and not ftfy.is_bad(fixed) and not _DEBRIS.search(fixed):
            return Garbled(Damage.MOJIBAKE, fixed)
    share, han = rare_share(text)
    if _DEBRIS.search(text) or (han and _LOST.search(text)):
        return Garbled(Damage.LOST, _repair(text, share) if han else None)
    if bad or _suspicious(share, han):
        return Garbled(Damage.MOJIBAKE, _repair(text, share if han else 1.0))
    if _PINYIN.search(text):
        return Garbled(Damage.PINYIN, _PINYIN.sub("", text))
    return None
