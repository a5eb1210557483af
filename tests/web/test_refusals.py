"""The pages show a service's refusal one way (`web.refusals`, ADR 0017): on the form, next to
its field, or flashed after a button; a not-found refusal is the 404 page."""

from __future__ import annotations

import pytest
from django import forms
from django.contrib.messages import get_messages
from django.contrib.messages.storage.fallback import FallbackStorage
from django.http import Http404
from django.test import RequestFactory

from tradepost.catalog.errors import ProductError, ProductErrorCode, ProductNotFound
from tradepost.messaging.errors import MessagingError, MessagingErrorCode
from tradepost.sourcing.errors import SourcingError, SourcingErrorCode
from tradepost.web.refusals import flash_refusal, show_on_form


class ReplyForm(forms.Form):
    title = forms.CharField(required=False)
    body = forms.CharField(required=False)


def _form() -> ReplyForm:
    form = ReplyForm({"title": "x", "body": "y"})
    assert form.is_valid()
    return form


def test_messages_go_next_to_their_field_and_the_rest_above_the_form():
    form = _form()
    show_on_form(
        form,
        ProductError(
            ProductErrorCode.INVALID,
            {"title": ["Too long."], "moq": ["Too small."], "__all__": ["Not now."]},
        ),
    )
    assert form.errors["title"] == ["Too long."]
    assert form.non_field_errors() == ["Too small.", "Not now."]


def test_a_service_argument_is_renamed_to_the_forms_field():
    form = _form()
    show_on_form(
        form,
        MessagingError(MessagingErrorCode.EMPTY_BODY, "Write a message.", field="message"),
        fields={"message": "body"},
    )
    assert form.errors["body"] == ["Write a message."]


@pytest.mark.parametrize(
    "error",
    [ProductNotFound(), ProductError(ProductErrorCode.NOT_ALLOWED, "Not yours.")],
    ids=["not-found-class", "not-yours-code"],
)
def test_a_not_found_refusal_is_the_404_page(error, rf: RequestFactory):
    with pytest.raises(Http404):
        show_on_form(_form(), error)
    with pytest.raises(Http404):
        flash_refusal(_request(rf), error)


def test_a_refusal_after_a_button_is_flashed(rf: RequestFactory):
    request = _request(rf)
    flash_refusal(request, SourcingError(SourcingErrorCode.REQUEST_FULL, "The request is full."))
    assert [(m.level_tag, m.message) for m in get_messages(request)] == [
        ("error", "The request is full.")
    ]


def _request(rf: RequestFactory):
    request = rf.post("/")
    request.session = {}  # type: ignore[attr-defined]
    request._messages = FallbackStorage(request)  # type: ignore[attr-defined]
    return request
