"""Bad files against every upload: the API's multipart operations with a file (read from its
schema) and the pages whose form has a file field. A text file named .png, a truncated PNG, a
PNG declaring 30,000 × 30,000 pixels (a decompression bomb) and one over the pixel limit, an
empty file and one over the size limit are each refused with a message saying why, in the
user's language, and leave no row and no file behind."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart

from tests.badinput.api_cases import OPERATIONS, Operation, kind_of, valid_body
from tests.badinput.checks import assert_answered, assert_problem, in_chinese
from tests.badinput.payloads import SMALL_LIMIT, UPLOADS, Expect, Upload
from tests.badinput.web_cases import WEB_WRITES, Page, encode, post, refusal_messages
from tests.badinput.world import World

pytestmark = pytest.mark.django_db


def _file_field(schema: dict[str, Any]) -> str | None:
    properties = schema.get("properties", {})
    return next((name for name, field in properties.items() if kind_of(field) == "file"), None)


API_UPLOADS = [
    operation
    for operation in OPERATIONS
    if operation.body_schema and _file_field(operation.body_schema)
]
PAGE_UPLOADS = [
    page for page in WEB_WRITES if "file" in page.field_kinds().values() and page.form is not None
]


@pytest.fixture(autouse=True)
def _small_limits(settings) -> None:
    settings.TRADEPOST_IMAGE_MAX_BYTES = SMALL_LIMIT
    settings.TRADEPOST_ATTACHMENT_MAX_BYTES = SMALL_LIMIT
    settings.TRADEPOST_MESSAGE_ATTACHMENT_MAX_BYTES = SMALL_LIMIT
    settings.TRADEPOST_VERIFICATION_MAX_BYTES = SMALL_LIMIT
    settings.TRADEPOST_IMPORT_MAX_BYTES = SMALL_LIMIT


def stored_files() -> set[Path]:
    media = Path(django_settings.MEDIA_ROOT)
    folders = [media, media.parent / "private"]
    return {path for folder in folders if folder.exists() for path in folder.rglob("*")}


def test_every_upload_is_found():
    assert len(API_UPLOADS) >= 4, [operation.id for operation in API_UPLOADS]
    assert len(PAGE_UPLOADS) >= 6, [page.name for page in PAGE_UPLOADS]


#: The file field of a catalogue upload: a sheet, refused for not being one.
SHEET_FIELDS = frozenset({"catalogue"})


def _api_is_sheet(operation: Operation) -> bool:
    return _file_field(operation.body_schema or {}) in SHEET_FIELDS


def _page_is_sheet(page: Page) -> bool:
    return any(kind == "file" and name in SHEET_FIELDS for name, kind in page.field_kinds().items())


def _says(upload: Upload, sheet: bool) -> str:
    return upload.says_sheet if sheet else upload.says


def _upload(upload: Upload) -> SimpleUploadedFile:
    return SimpleUploadedFile(upload.filename, upload.content, "image/png")


def _api_messages(response) -> str:
    problem = assert_problem(response, chinese=False)
    return " ".join([problem["detail"], *(e["message"] for e in problem.get("errors", []))])


def _send_api(http: Client, world: World, operation: Operation, upload: Upload, language: str):
    assert operation.body_schema is not None
    data = valid_body(operation, world)
    data[_file_field(operation.body_schema) or ""] = _upload(upload)
    http.cookies.clear()
    return http.generic(
        operation.method.upper(),
        operation.url(world),
        encode_multipart(BOUNDARY, data),
        content_type=MULTIPART_CONTENT,
        headers={"Authorization": f"Bearer {world.api_secret}", "Accept-Language": language},
    )


def _send_page(http: Client, sessions, world: World, page: Page, upload: Upload, language: str):
    name = next(name for name, kind in page.field_kinds().items() if kind == "file")
    body, content_type = encode({**page.data(world), name: _upload(upload)})
    return post(http, sessions, page, page.url(world, language), body, content_type)


def _page_messages(response) -> str:
    shown = refusal_messages(response)
    assert shown, f"no refusal shown ({response.status_code})"
    return " ".join(shown)


@pytest.mark.parametrize("upload", UPLOADS, ids=lambda u: u.name)
@pytest.mark.parametrize("operation", API_UPLOADS, ids=lambda o: o.id)
def test_the_api_refuses_a_bad_file(http, world, operation: Operation, upload: Upload):
    files = stored_files()
    response = _send_api(http, world, operation, upload, "en")
    assert_answered(response, world, Expect.REFUSED)
    says = _says(upload, _api_is_sheet(operation))
    assert re.search(says, _api_messages(response)), _api_messages(response)
    assert stored_files() == files


@pytest.mark.parametrize("upload", UPLOADS, ids=lambda u: u.name)
@pytest.mark.parametrize("page", PAGE_UPLOADS, ids=lambda p: p.id)
def test_a_page_refuses_a_bad_file(http, sessions, world, page: Page, upload: Upload):
    files = stored_files()
    response = _send_page(http, sessions, world, page, upload, "en")
    shown = refusal_messages(response)
    assert_answered(response, world, Expect.REFUSED, refused=shown is not None)
    says = _says(upload, _page_is_sheet(page))
    assert re.search(says, _page_messages(response)), _page_messages(response)
    assert stored_files() == files


BOMB = next(upload for upload in UPLOADS if upload.name == "bomb-png")


@pytest.mark.parametrize("operation", API_UPLOADS, ids=lambda o: o.id)
def test_the_api_says_a_bomb_has_too_many_pixels_in_chinese(http, world, operation: Operation):
    response = _send_api(http, world, operation, BOMB, "zh-hans")
    assert response.status_code == 422
    message = _api_messages(response)
    if _api_is_sheet(operation):  # a picture is not a catalogue sheet, said in Chinese
        assert in_chinese(message.replace("bomb.png", "")), message
    else:
        assert "像素" in message, message  # "pixels"
    assert_problem(response, chinese=True)


@pytest.mark.parametrize("page", PAGE_UPLOADS, ids=lambda p: p.id)
def test_a_page_says_a_bomb_has_too_many_pixels_in_chinese(http, sessions, world, page: Page):
    message = _page_messages(_send_page(http, sessions, world, page, BOMB, "zh-hans"))
    if _page_is_sheet(page):  # a picture is not a catalogue sheet, said in Chinese
        assert in_chinese(message.replace("bomb.png", "")), message
        return
    assert "像素" in message and in_chinese(message.replace("像素", "")), message
