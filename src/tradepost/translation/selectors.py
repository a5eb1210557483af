"""Reading stored machine translations: every translation a page shows, in one query.

A page of cards asks for about 20 titles: the statement is written here with a plain cursor
(as `catalog.hydration` writes its own) rather than compiled by the ORM, which took most of
the half millisecond the read cost (`bench/results`: the hydration bench)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from django.db import connections, router

from tradepost.translation.keys import Wanted
from tradepost.translation.models import StoredTranslation
from tradepost.translation.services import KEYS_PER_STATEMENT


@dataclass(frozen=True)
class MachineText:
    """A stored machine translation as a page shows it."""

    text: str
    language: str
    engine: str


@cache
def _statement(vendor: str, count: int) -> str:
    """The read of `count` keys (the vendor only names the connection's quoting)."""
    quote = connections[router.db_for_read(StoredTranslation)].ops.quote_name
    table = quote(StoredTranslation._meta.db_table)
    columns = ", ".join(quote(name) for name in ("key", "text", "target_language", "engine"))
    marks = ", ".join(["%s"] * count)
    return (
        f"SELECT {columns} FROM {table} "  # noqa: S608 (names from the model, values bound)
        f"WHERE {quote('key')} IN ({marks}) AND {quote('engine')} <> ''"
    )


def stored_translations(wanted: Iterable[Wanted]) -> dict[Wanted, MachineText]:
    """The stored translations of `wanted` (those not translated yet are absent, and so are
    texts an engine left as they were: the page shows the original)."""
    by_key = {item.key: item for item in wanted}
    keys = list(by_key)
    found: dict[Wanted, MachineText] = {}
    connection = connections[router.db_for_read(StoredTranslation)]
    for start in range(0, len(keys), KEYS_PER_STATEMENT):
        batch = keys[start : start + KEYS_PER_STATEMENT]
        with connection.cursor() as cursor:
            cursor.execute(_statement(connection.vendor, len(batch)), batch)
            for key, text, language, engine in cursor.fetchall():
                found[by_key[key]] = MachineText(text, language, engine)
    return found
