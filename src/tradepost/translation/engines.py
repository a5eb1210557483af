"""One interface for machine translation: `translate(text, source, target, kind)`.

`kind` says what the text is (a listing's title, its keywords, an attribute value, a
description, a message), so that an engine can write it as such: titles come out in title
case, keywords stay a list. The embedded engine is the lexicon gloss (`translation.gloss`):
no network, no download, about a tenth of a millisecond a title.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from tradepost.translation import gloss


class Kind(StrEnum):
    TITLE = "title"
    KEYWORDS = "keywords"
    ATTRIBUTE = "attribute"
    DESCRIPTION = "description"
    MESSAGE = "message"


@dataclass(frozen=True)
class Translated:
    text: str
    #: The engine that wrote it ("gloss"); "" when the text was left as it was.
    engine: str
    #: The share of the source's words the engine had no translation for (0 to 1).
    untranslated_share: float


def supported(source: str, target: str) -> bool:
    """Whether text in `source` can be machine-translated into `target`."""
    return gloss.supported(source, target)


def translate(text: str, *, source: str, target: str, kind: Kind | str) -> Translated:
    """`text`, written in `source`, in `target`; unchanged (engine "") for a pair no engine
    translates or a text with nothing to translate."""
    if not text.strip() or not supported(source, target):
        return Translated(text, "", 0.0)
    result = gloss.gloss(text, source=source, target=target, title=kind == Kind.TITLE)
    return Translated(result.text, "gloss", result.untranslated_share)
