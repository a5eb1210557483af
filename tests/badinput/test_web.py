"""Bad input against every page that takes a POST (found by walking the URL resolver): each
field of each form gets each bad value of its kind, and each body is replaced by each bad body.

The answer is never a 5xx. A refusal (a 4xx page, the form again with its errors, or a
redirect with an error message) saves nothing, and its messages are in the visitor's language
(the tests post to the Simplified Chinese pages).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.test import Client

from tests.badinput.checks import assert_answered, in_chinese
from tests.badinput.payloads import OVERLONG, Expect
from tests.badinput.web_cases import (
    FORM,
    PAGES,
    SURROGATE_MARK,
    WEB_WRITES,
    Page,
    encode,
    post,
    post_views,
    refusal_messages,
    refused_fields,
)
from tests.badinput.world import World

pytestmark = pytest.mark.django_db


def answer(
    http: Client, sessions, world: World, page: Page, body: bytes, content_type: str, expect
):
    response = post(http, sessions, page, page.url(world), body, content_type)
    shown = refusal_messages(response)
    assert_answered(response, world, expect, refused=shown is not None)
    for message in shown or []:
        assert in_chinese(message), f"not in the visitor's language: {message!r}"
    return response


def test_every_page_that_takes_a_post_is_listed():
    found = post_views()
    assert len(found) >= 45
    assert found - set(PAGES) == set(), "add these pages to WEB_WRITES in web_cases.py"
    assert set(PAGES) - found == set(), "these pages no longer take a POST"
    assert sum(len(page.field_kinds()) for page in WEB_WRITES) >= 100


@pytest.mark.parametrize("page", WEB_WRITES, ids=lambda p: p.id)
def test_the_valid_submission_is_accepted(http, sessions, world, page: Page):
    """So that the bad variants below are refused for their bad part, not another."""
    body, content_type = encode(page.data(world))
    response = post(http, sessions, page, page.url(world), body, content_type)
    assert response.status_code < 500
    if page.form is not None:
        assert refusal_messages(response) is None, (page.name, refusal_messages(response))


@dataclass(frozen=True)
class Values:
    """Bad values for every text field and every number field of a form at once."""

    name: str
    text: Any
    number: str
    expect: Expect


VALUES = [
    Values("nul-and-words", "x\x00y", "twelve", Expect.REFUSED),
    Values("overlong-and-huge", OVERLONG, "1" + "0" * 40, Expect.REFUSED),
    Values("surrogate-bytes-and-float-overflow", f"x{SURROGATE_MARK}y", "1e400", Expect.ANY),
    Values("two-values-and-nan", ["first", "second"], "NaN", Expect.ANY),
]


FORM_PAGES = [
    page for page in WEB_WRITES if any(kind != "file" for kind in page.field_kinds().values())
]


@pytest.mark.parametrize("values", VALUES, ids=lambda v: v.name)
@pytest.mark.parametrize("page", FORM_PAGES, ids=lambda p: p.id)
def test_bad_values_in_every_field_are_refused(http, sessions, world, page: Page, values):
    """Every field of the form at once; then, for values that must be refused, each field the
    form let through alone, so that what the service does with it is seen too."""
    # A page reading request.POST itself may clean a value as its service does (a NUL is
    # dropped): only a form's fields must refuse.
    expect = values.expect if page.form is not None else Expect.ANY
    kinds = page.field_kinds()
    bad = {
        name: values.text if kind == "text" else values.number
        for name, kind in kinds.items()
        if kind != "file"
    }
    body, content_type = encode({**page.data(world), **bad})
    response = answer(http, sessions, world, page, body, content_type, expect)
    if expect is not Expect.REFUSED:
        return
    for name in sorted(set(bad) - refused_fields(response)):
        body, content_type = encode({**page.data(world), name: bad[name]})
        answer(http, sessions, world, page, body, content_type, expect)


def _first_text_field(page: Page) -> str:
    kinds = page.field_kinds()
    return next((name for name, kind in kinds.items() if kind == "text"), "note")


def bad_body(page: Page, world: World, name: str) -> tuple[bytes, str]:
    data = page.data(world)
    text_field = _first_text_field(page)
    plain = {key: value for key, value in data.items() if isinstance(value, str | list)}
    if name == "latin-1-raw-bytes":
        body = urlencode({**plain, text_field: "MARK"}, doseq=True).encode()
        return body.replace(b"MARK", "Café".encode("latin-1")), FORM
    if name == "gbk-declared":
        plain[text_field] = "不锈钢保温杯"
        body = urlencode(plain, doseq=True, encoding="gbk", errors="replace")
        return body.encode(), f"{FORM}; charset=gbk"
    if name == "json":
        return json.dumps(plain).encode(), "application/json"
    if name == "multipart-without-boundary":
        return urlencode(plain, doseq=True).encode(), "multipart/form-data"
    if name == "multipart-garbage":
        return b"--xyz\r\nContent-Disposition: form-data; name=\x00\r\n\r\n", (
            "multipart/form-data; boundary=xyz"
        )
    if name == "huge":
        size = settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1
        return urlencode(plain, doseq=True).encode() + b"&note=" + b"x" * size, FORM
    if name == "too-many-fields":
        fields = "&".join(f"f{n}=1" for n in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))
        return fields.encode(), FORM
    raise AssertionError(name)


BAD_BODIES = [
    "latin-1-raw-bytes",
    "gbk-declared",
    "json",
    "multipart-without-boundary",
    "multipart-garbage",
    "huge",
    "too-many-fields",
]


@pytest.mark.parametrize("body", BAD_BODIES)
@pytest.mark.parametrize("page", WEB_WRITES, ids=lambda p: p.id)
def test_a_bad_body_is_refused(http, sessions, world, page: Page, body: str):
    raw, content_type = bad_body(page, world, body)
    answer(http, sessions, world, page, raw, content_type, Expect.ANY)


def test_a_decline_reason_too_long_is_refused_saying_so(http, sessions, world):
    page = PAGES["sourcing:decline"]
    body, content_type = encode({"reason": "Too expensive. " * 40})
    response = answer(http, sessions, world, page, body, content_type, Expect.REFUSED)
    (message,) = refusal_messages(response) or [""]
    assert "500" in message and in_chinese(message), message  # "at most 500 characters"


def test_a_refusal_speaks_the_visitors_language(http, sessions, world):
    page = PAGES["products:create"]
    body, content_type = encode({**page.data(world), "title": "x\x00y"})
    response = answer(http, sessions, world, page, body, content_type, Expect.REFUSED)
    assert response.status_code == 200
    assert page.url(world).startswith("/zh-hans/")
    assert "空字符" in response.content.decode()  # "Null characters are not allowed."
