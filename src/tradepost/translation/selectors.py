"""Reading stored machine translations: every translation a page shows, in one query."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tradepost.translation.keys import Wanted
from tradepost.translation.models import StoredTranslation
from tradepost.translation.services import KEYS_PER_STATEMENT


@dataclass(frozen=True)
class MachineText:
    """A stored machine translation as a page shows it."""

    text: str
    language: str
    engine: str


def stored_translations(wanted: Iterable[Wanted]) -> dict[Wanted, MachineText]:
    """The stored translations of `wanted` (those not translated yet are absent, and so are
    texts an engine left as they were: the page shows the original)."""
    by_key = {item.key: item for item in wanted}
    keys = list(by_key)
    found: dict[Wanted, MachineText] = {}
    for start in range(0, len(keys), KEYS_PER_STATEMENT):
        rows = StoredTranslation.objects.filter(
            key__in=keys[start : start + KEYS_PER_STATEMENT]
        ).exclude(engine="")
        for key, text, language, engine in rows.values_list(
            "key", "text", "target_language", "engine"
        ):
            found[by_key[key]] = MachineText(text, language, engine)
    return found
