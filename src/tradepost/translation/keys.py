"""What identifies a stored machine translation: the text, its language, the language wanted
and the kind of text. The key is the SHA-256 of the four, so an edited text asks for a new
translation and an unchanged one, however often it is saved, for the one already stored."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from tradepost.core.chinese_scripts import convert_script, is_convertible
from tradepost.core.languages import UI_LANGUAGES
from tradepost.translation.engines import Kind, supported


@dataclass(frozen=True)
class Wanted:
    """A text to be read in `target`."""

    text: str
    source: str
    target: str
    kind: Kind

    @property
    def key(self) -> str:
        digest = hashlib.sha256()
        for part in (self.kind, self.source, self.target):
            digest.update(part.encode("ascii", "replace") + b"\x00")
        digest.update(self.text.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()


def machine_targets(source: str) -> list[str]:
    """The interface languages a text written in `source` is machine-translated into."""
    return [target for target in UI_LANGUAGES if target != source and supported(source, target)]


def wanted_for(
    text: str, source: str, kind: Kind, targets: list[str] | None = None
) -> list[Wanted]:
    """The translations of one text a site keeps: into each of `targets` (by default every
    interface language an engine can write it in); none for a text with nothing to read."""
    if not text or not text.strip():
        return []
    source = (source or "en").lower()
    chosen = machine_targets(source) if targets is None else targets
    return [Wanted(text, source, target, kind) for target in chosen if supported(source, target)]


def as_read_by(text: str, source: str, kind: Kind, reader: str) -> tuple[str, Wanted | None]:
    """How `text`, written in `source`, is quoted to one reader of `reader` outside a page
    (an email): in the reader's Chinese script when written in the other one, else as
    written, with the machine translation into `reader` it asks for (None when it asks for
    none: the reader's language, nothing to read, a pair no engine translates)."""
    source = (source or "en").lower()
    if is_convertible(source, reader):
        return convert_script(text, written_in=source, reader=reader), None
    wanted = wanted_for(text, source, kind, [reader])
    return text, wanted[0] if wanted else None
