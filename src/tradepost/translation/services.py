"""Writing machine translations: each wanted text not stored yet is translated once and
stored (`StoredTranslation`). Called from the background tasks of the apps whose texts are
read in other languages (listings, buying requests, messages), never while a page waits."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from tradepost.translation.engines import translate
from tradepost.translation.keys import Wanted
from tradepost.translation.models import StoredTranslation

#: Keys asked about per statement (SQLite allows 999 parameters).
KEYS_PER_STATEMENT = 500


def translations_ensure(wanted: Iterable[Wanted]) -> int:
    """Translate and store the texts of `wanted` that have no stored translation yet;
    answers how many were written. A text no engine translated (garbled text, a pair only a
    server that is down can translate) is not stored, so a later run tries again. Two
    workers doing the same at once store one each (the key is unique; the second row is
    dropped)."""
    by_key = {item.key: item for item in wanted}
    keys = list(by_key)
    stored: set[str] = set()
    for start in range(0, len(keys), KEYS_PER_STATEMENT):
        batch = keys[start : start + KEYS_PER_STATEMENT]
        stored.update(StoredTranslation.objects.filter(key__in=batch).values_list("key", flat=True))
    rows = []
    for key, item in by_key.items():
        if key in stored:
            continue
        result = translate(item.text, source=item.source, target=item.target, kind=item.kind)
        if not result.engine:  # kept as written (garbled, or no engine answered): asked again
            continue
        rows.append(
            StoredTranslation(
                key=key,
                source_language=item.source,
                target_language=item.target,
                kind=item.kind,
                engine=result.engine,
                text=result.text,
                untranslated_share=round(result.untranslated_share, 4),
            )
        )
    StoredTranslation.objects.bulk_create(rows, batch_size=200, ignore_conflicts=True)
    return len(rows)


def translations_prune(wanted_batches: Iterable[Iterable[Wanted]], *, now: datetime) -> int:
    """Delete the stored translations that no text asks for any more (a listing edited,
    unpublished or deleted, a message hidden); answers how many were deleted.

    `wanted_batches` walks every translation the site's texts ask for, a bounded batch at a
    time (a million listings never sit in memory at once): each row still asked for is
    marked with `now`, the time the walk began, and the rows left unmarked are deleted,
    except those written since (a listing published while the walk went on)."""
    for batch in wanted_batches:
        keys = sorted({item.key for item in batch})
        for start in range(0, len(keys), KEYS_PER_STATEMENT):
            StoredTranslation.objects.filter(
                key__in=keys[start : start + KEYS_PER_STATEMENT]
            ).update(seen_at=now)
    unasked = StoredTranslation.objects.filter(created_at__lt=now).exclude(seen_at=now)
    deleted, _by_model = unasked.delete()
    return deleted


def translations_forget() -> int:
    """Delete every stored machine translation (to write them again with another engine);
    answers how many were deleted."""
    deleted, _by_model = StoredTranslation.objects.all().delete()
    return deleted
