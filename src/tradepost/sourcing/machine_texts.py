"""Buying requests read in the viewer's language (docs/adr/0036): the buyer's words in the
viewer's Chinese script, or machine-translated into the viewer's language, labelled, with
the original one click away. The translations are stored in the background when a request
is posted or edited (`sourcing.tasks.translate_requests`) and read in one query a page."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from django.utils.html import linebreaks

from tradepost.catalog.selectors import LocalisedText, in_reader_script
from tradepost.core.html import html_to_paragraphs
from tradepost.core.languages import normalise_ui_language
from tradepost.core.queueing import enqueue_in_chunks
from tradepost.messaging.machine_texts import (
    plain_readings,
    plain_texts_translate,
    plain_texts_wanted,
)
from tradepost.search.documents import id_batches
from tradepost.sourcing.models import BuyingRequest, Quotation, RequestStatus
from tradepost.translation.engines import Kind
from tradepost.translation.keys import Wanted, wanted_for
from tradepost.translation.selectors import stored_translations
from tradepost.translation.services import translations_ensure

#: Requests translated per query and per stored batch.
TRANSLATE_CHUNK = 200


def _wanted(item: Any, targets: list[str] | None) -> tuple[list[Wanted], list[Wanted]]:
    source = (item.original_language or "en").lower()
    return (
        wanted_for(item.title, source, Kind.TITLE, targets),
        wanted_for(html_to_paragraphs(item.description), source, Kind.DESCRIPTION, targets),
    )


def requests_translate(request_ids: Iterable[int]) -> int:
    """Store the missing machine translations of the open requests among `request_ids` (the
    background task's work; idempotent); answers how many were written."""
    ids = sorted(set(request_ids))
    written = 0
    for start in range(0, len(ids), TRANSLATE_CHUNK):
        items = BuyingRequest.objects.filter(
            pk__in=ids[start : start + TRANSLATE_CHUNK], status=RequestStatus.OPEN
        ).only("title", "description", "original_language")
        wanted = [w for item in items for part in _wanted(item, None) for w in part]
        written += translations_ensure(wanted)
    return written


def attach_request_texts(items: Iterable[Any], language: str) -> None:
    """Give each request `text` (a `catalog.selectors.LocalisedText`): its title and
    description as the viewer reads them: as written (in their Chinese script), else the
    stored machine translation into their language, else as written, marked with its
    language. One query for all of them."""
    language = normalise_ui_language(language)
    items = list(items)
    parts = [_wanted(item, [language]) for item in items]
    wanted = [w for title, description in parts for w in title + description]
    found = stored_translations(wanted) if wanted else {}
    for item, (title, description) in zip(items, parts, strict=True):
        source = (item.original_language or "en").lower()
        machine_title = found.get(title[0]) if title else None
        machine_description = found.get(description[0]) if description else None
        if machine_title is not None:
            item.text = LocalisedText(
                title=machine_title.text,
                written_description=linebreaks(machine_description.text, autoescape=True)
                if machine_description is not None
                else item.description,
                language=language,
                original_language=source,
                viewer_language=language,
                is_translation=True,
                machine=True,
            )
            continue
        item.text = in_reader_script(
            LocalisedText(
                title=item.title,
                written_description=item.description,
                language=source,
                original_language=source,
                viewer_language=language,
                is_translation=False,
            )
        )


def translate_open_requests_in_background() -> int:
    """Queue the machine translation of every open request, `TRANSLATE_CHUNK` a task (after
    the demo is loaded); answers how many were queued."""
    from tradepost.sourcing.tasks import translate_requests

    return enqueue_in_chunks(translate_requests, open_request_ids(), TRANSLATE_CHUNK)


def open_request_ids() -> list[int]:
    """The open requests' ids, oldest first (`tradepost translate`)."""
    return list(
        BuyingRequest.objects.filter(status=RequestStatus.OPEN)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def quotations_translate(quotation_ids: Iterable[int]) -> int:
    """Store the missing machine translations of the notes of the quotations among
    `quotation_ids` (written in the language the supplier writes in, guessed as a message's;
    the background task's work; idempotent); answers how many were written."""
    written = 0
    for batch in id_batches(quotation_ids):
        notes = Quotation.objects.filter(pk__in=batch).values_list("message", flat=True)
        written += plain_texts_translate(notes)
    return written


def attach_quotation_texts(quotations: Iterable[Any], language: str) -> None:
    """Give each quotation `message_reading`: how a reader of `language` reads its note
    (`messaging.machine_texts.plain_readings`: machine-translated, converted into their
    Chinese script, or as written). One query for all of them."""
    quotations = list(quotations)
    readings = plain_readings([quotation.message or None for quotation in quotations], language)
    for quotation, reading in zip(quotations, readings, strict=True):
        quotation.message_reading = reading


def all_quotation_ids() -> list[int]:
    """Every quotation's id, oldest first (`tradepost translate`)."""
    return list(Quotation.objects.order_by("pk").values_list("pk", flat=True))


def requests_and_quotations_wanted() -> Iterator[list[Wanted]]:
    """Every machine translation the buying requests (whatever their state: a closed one
    is still read by its buyer and the suppliers that quoted) and the quotations' notes ask
    for, a batch at a time (the clean-up of `tradepost translate --prune`)."""
    request_ids = BuyingRequest.objects.order_by("pk").values_list("pk", flat=True)
    for batch in id_batches(list(request_ids)):
        items = BuyingRequest.objects.filter(pk__in=batch).only(
            "title", "description", "original_language"
        )
        yield [w for item in items for part in _wanted(item, None) for w in part]
    for batch in id_batches(all_quotation_ids()):
        notes = Quotation.objects.filter(pk__in=batch).values_list("message", flat=True)
        yield plain_texts_wanted(notes)
