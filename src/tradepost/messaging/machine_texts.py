"""Conversation messages read in the reader's language: each side writes in its own language
and reads the other's machine-translated (labelled, the original one click away), or, for
Chinese written in the other script, converted into the reader's script.

A message says nothing of its language, so it is guessed from its text (`message_language`).
The translations are stored in the background once a message is sent
(`messaging.tasks.translate_messages`) and read in one query a page (`attach_message_texts`).
Whether a message is translated for a reader depends on its language only, never on who sent
it: the reader's own messages are in their language, unless they wrote in another one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from tradepost.catalog.selectors import language_tag
from tradepost.core.chinese_scripts import (
    SIMPLIFIED,
    TRADITIONAL,
    convert_script,
    is_convertible,
)
from tradepost.core.languages import normalise_ui_language
from tradepost.core.queueing import enqueue_in_chunks
from tradepost.messaging.models import Message
from tradepost.search.documents import id_batches
from tradepost.translation.engines import Kind
from tradepost.translation.keys import Wanted, wanted_for
from tradepost.translation.selectors import MachineText, stored_translations
from tradepost.translation.services import translations_ensure

#: Messages translated per query and per stored batch.
TRANSLATE_CHUNK = 200

_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]")


def message_language(body: str) -> str:
    """The language `body` is written in, guessed from its text: "zh-hant" when it has Han
    characters that OpenCC's traditional-to-simplified conversion changes, "zh-hans" when it
    has Han characters otherwise, else "en". A message in any other language is read as
    English: the gloss leaves the words it does not know as written, so such a message is
    shown as written (or, with a translation server, translated as if it were English)."""
    if not body or not _HAN.search(body):
        return "en"
    if convert_script(body, written_in=TRADITIONAL, reader=SIMPLIFIED) != body:
        return TRADITIONAL
    return SIMPLIFIED


def messages_translate(message_ids: Iterable[int]) -> int:
    """Store the missing machine translations of the bodies of the messages among
    `message_ids` into every interface language an engine writes (the background task's
    work; idempotent); answers how many were written.

    `Message.flagged` marks a text sent to many companies within a day for the operators to
    look at: such a message is still delivered and shown, so it is translated like any other.
    A message hidden by moderation (`hidden_at`) is not shown to the two companies, and is
    left out."""
    written = 0
    for batch in id_batches(message_ids):
        shown = Message.objects.filter(pk__in=batch, hidden_at__isnull=True)
        written += plain_texts_translate(shown.values_list("body", flat=True))
    return written


def plain_texts_translate(texts: Iterable[str]) -> int:
    """Store the missing machine translations of plain texts (messages, quotations' notes),
    each in the language it is written in (`message_language`), into every interface
    language an engine writes; answers how many were written."""
    return translations_ensure(plain_texts_wanted(texts))


def plain_texts_wanted(texts: Iterable[str]) -> list[Wanted]:
    """The machine translations plain texts ask for (`plain_texts_translate`)."""
    return [
        item for text in texts for item in wanted_for(text, message_language(text), Kind.MESSAGE)
    ]


def shown_messages_wanted() -> Iterator[list[Wanted]]:
    """Every machine translation the shown messages ask for, a batch of messages at a time
    (the clean-up of `tradepost translate --prune`)."""
    for batch in id_batches(shown_message_ids()):
        shown = Message.objects.filter(pk__in=batch, hidden_at__isnull=True)
        yield plain_texts_wanted(shown.values_list("body", flat=True))


@dataclass(frozen=True)
class PlainReading:
    """A plain text (a message, a quotation's note) as one reader reads it."""

    language: str  # the language it is written in (`message_language`)
    lang_tag: str  # the same, as an HTML `lang` attribute
    #: The stored machine translation into the reader's language, or None (in their
    #: language, in the other Chinese script, not translated yet, hidden).
    machine_text: MachineText | None
    #: The text in the reader's Chinese script when written in the other one (None
    #: otherwise, and when the conversion changes nothing).
    converted: str | None


def plain_readings(texts: list[str | None], language: str) -> list[PlainReading]:
    """How a reader of `language` reads each of `texts` (None: a text not shown, such as a
    hidden message, is read as written): one query for all of them, none when no text
    wants a translation."""
    language = normalise_ui_language(language)
    wanted: dict[int, Wanted] = {}
    converted: dict[int, str] = {}
    sources = []
    for index, text in enumerate(texts):
        source = message_language(text or "")
        sources.append(source)
        if text is None:
            continue
        if is_convertible(source, language):
            written = convert_script(text, written_in=source, reader=language)
            if written != text:
                converted[index] = written
            continue
        found = wanted_for(text, source, Kind.MESSAGE, [language])
        if found:
            wanted[index] = found[0]
    stored = stored_translations(wanted.values()) if wanted else {}
    return [
        PlainReading(
            language=source,
            lang_tag=language_tag(source),
            machine_text=stored.get(wanted[index]) if index in wanted else None,
            converted=converted.get(index),
        )
        for index, source in enumerate(sources)
    ]


def attach_message_texts(messages: Iterable[Any], language: str) -> None:
    """Give each message, for a reader of `language`: `body_language` and `body_lang_tag`
    (the language its body is written in), `machine_text` (the stored machine translation
    of its body into `language`, or None) and `converted_body` (the body in the reader's
    Chinese script when written in the other one, else None), from `plain_readings`. A
    message hidden by moderation is read as written."""
    messages = list(messages)
    readings = plain_readings(
        [None if message.is_hidden else message.body for message in messages], language
    )
    for message, reading in zip(messages, readings, strict=True):
        message.body_language = reading.language
        message.body_lang_tag = reading.lang_tag
        message.machine_text = reading.machine_text
        message.converted_body = reading.converted


def translate_messages_in_background() -> int:
    """Queue the machine translation of every shown message, `TRANSLATE_CHUNK` a task (after
    the demo is loaded); answers how many were queued."""
    from tradepost.messaging.tasks import translate_messages

    return enqueue_in_chunks(translate_messages, shown_message_ids(), TRANSLATE_CHUNK)


def shown_message_ids() -> list[int]:
    """The ids of the messages not hidden by moderation, oldest first."""
    return list(
        Message.objects.filter(hidden_at__isnull=True).order_by("pk").values_list("pk", flat=True)
    )
