"""How a page shows a service's refusal: the web's one mapping of the error family
(`core.errors.DomainError`; the API's is `api.problems.domain_problem`, ADR 0017).

- A page with a form shows the refusal on the form, `show_on_form(form, error)`: each message
  next to its field; the messages about the request as a whole, and those about a field the
  form does not have, above the form.
- A button without a form of its own (publish, close, award, remove...) flashes the refusal,
  `flash_refusal(request, error)`, on the page the view redirects to.
- A button whose small form (a reason, a choice) is refused by the form itself flashes the
  form's messages, `flash_form_errors(request, form)`, as a refusal would be.
- Either way a not-found refusal answers the 404 page, as the access helpers do: a missing
  object and another company's look the same.

A view catches its app's error class around the one service call and hands it here; a view
that answers a status of its own for some kind (429 when rate limited) reads `error.kind`.
"""

from __future__ import annotations

from collections.abc import Mapping

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest

from tradepost.core.errors import NON_FIELD, DomainError, ErrorKind


def _raise_if_not_found(error: DomainError) -> None:
    if error.kind is ErrorKind.NOT_FOUND:
        if isinstance(error, Http404):
            raise error
        raise Http404(error.message) from error


def show_on_form(
    form: forms.BaseForm, error: DomainError, *, fields: Mapping[str, str] | None = None
) -> None:
    """Put the refusal's messages on `form`. `fields` renames the service's argument names
    to the form's field names where they differ (`{"message": "body"}`)."""
    _raise_if_not_found(error)
    for name, texts in error.message_dict.items():
        renamed = (fields or {}).get(name, name)
        target = renamed if renamed != NON_FIELD and renamed in form.fields else None
        for text in texts:
            form.add_error(target, text)


def flash_refusal(request: HttpRequest, error: DomainError) -> None:
    """Show the refusal as an error message on the next page."""
    _raise_if_not_found(error)
    messages.error(request, error.message)


def flash_form_errors(
    request: HttpRequest, form: forms.BaseForm, *, labelled: bool = False
) -> None:
    """Show each of an invalid form's messages as an error message on the next page (with
    its field's label in front when `labelled`)."""
    for name, errors in form.errors.items():
        field = form.fields.get(name)
        for error in errors:
            text = str(error)
            messages.error(request, f"{field.label}: {text}" if labelled and field else text)
