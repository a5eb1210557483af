"""Rendering an email in its recipient's language, with the texts it quotes machine-translated.

An email quoting what someone wrote (a message, a buying request's title, a quotation's note)
in another language shows the stored machine translation into the recipient's language,
labelled, above the original, as the pages do. The translation is written in the background,
so such an email is rendered by the worker (`notify.tasks.render_and_send_email`), which
first stores the translations it lacks (`translation.services.translations_ensure`, shared
with the pages: a message translated for its email is not translated again for its page).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.functional import Promise

from tradepost.core.languages import normalise_ui_language
from tradepost.translation.engines import Kind
from tradepost.translation.keys import Wanted, as_read_by
from tradepost.translation.selectors import stored_translations
from tradepost.translation.services import translations_ensure


@dataclass(frozen=True)
class Quoted:
    """A text an email quotes (`queue_email(quoted=...)`), read by its recipient as the pages
    read it: written in `source`, translated as a text of `kind`, and cut after `limit`
    characters (the translation too) where given."""

    text: str
    source: str
    kind: Kind
    limit: int | None = None


def clip(text: str, limit: int | None) -> str:
    """`text`, cut after `limit` characters with an ellipsis."""
    if limit is not None and len(text) > limit:
        return text[:limit] + "…"
    return text


def render_email(
    *, subject: str | Promise, template: str, context: dict[str, Any], language: str
) -> dict[str, str]:
    """Subject, text and HTML of an email, rendered with `language` active."""
    language = normalise_ui_language(language)
    with translation.override(language):
        full_context = {"SITE_URL": settings.SITE_URL, "email_language": language, **context}
        rendered_subject = " ".join(str(subject).split())
        text = render_to_string(f"emails/{template}.txt", full_context)
        html = render_to_string(f"emails/{template}.html", full_context)
    return {"subject": rendered_subject, "text": text, "html": html, "language": language}


def quote(
    quoted: Mapping[str, Quoted], language: str
) -> tuple[dict[str, str], dict[str, list[Any]]]:
    """The context of the texts an email quotes to a reader of `language` (each in the
    reader's Chinese script when written in the other one, else as written), and the
    machine translations they ask for, as a task's plain arguments (`machine_context`)."""
    context = {}
    machine: dict[str, list[Any]] = {}
    for name, item in quoted.items():
        shown, wanted = as_read_by(item.text, item.source, item.kind, language)
        context[name] = clip(shown, item.limit)
        if wanted is not None:
            machine[name] = [
                wanted.text,
                wanted.source,
                wanted.target,
                str(wanted.kind),
                item.limit,
            ]
    return context, machine


def machine_context(machine: Mapping[str, list[Any]]) -> dict[str, str]:
    """`<name>_machine` for each quoted text of `machine` (from `quote`) that an engine
    translates: the stored translation, written now when missing. A text no engine
    translates gets nothing, and the email quotes it as written."""
    wanted = {
        name: Wanted(text, source, target, Kind(kind))
        for name, (text, source, target, kind, _limit) in machine.items()
    }
    translations_ensure(wanted.values())
    found = stored_translations(wanted.values())
    context = {}
    for name, item in wanted.items():
        text = found.get(item)
        if text is not None:
            context[f"{name}_machine"] = clip(text.text, machine[name][4])
    return context
