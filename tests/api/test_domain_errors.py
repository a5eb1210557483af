"""One exception handler answers every app's refusal (docs/adr/0017-one-error-family.md): each
code of each app becomes the problem document of its kind, and no endpoint translates them."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from django.test import RequestFactory
from django.utils import translation

import tradepost.api
from tests.error_family import APP_CODES, SPECIAL_ERRORS
from tradepost.api.openapi import ERROR_DESCRIPTIONS
from tradepost.api.problems import KIND_STATUS, problem_type
from tradepost.api.urls import api
from tradepost.catalog.errors import ProductError, ProductErrorCode
from tradepost.core.errors import DomainError, ErrorKind
from tradepost.sourcing.errors import SourcingError, SourcingErrorCode

CASES = [(error, code) for error, codes in APP_CODES.values() for code in codes]


def _answer(error: DomainError, language: str = "en") -> tuple[int, dict]:
    request = RequestFactory().post("/api/v1/anything")
    with translation.override(language):
        response = api.on_exception(request, error)
    assert response["Content-Type"] == "application/problem+json"
    return response.status_code, json.loads(response.content)


@pytest.mark.parametrize(
    ("error_class", "code"), CASES, ids=[f"{e.__name__}-{c.value}" for e, c in CASES]
)
def test_every_code_of_every_app_is_answered_by_its_kind(error_class, code):
    status, body = _answer(error_class(code, "Refused."))
    assert status == body["status"] == KIND_STATUS[code.kind]
    assert body["title"] and body["detail"] and body["instance"] == "/api/v1/anything"
    if code.kind is ErrorKind.NOT_FOUND:
        # Nothing tells a missing object from another company's.
        assert body["type"] == problem_type("not-found")
        assert "Refused." not in body["detail"]
    elif code.kind is ErrorKind.INVALID:
        assert body["type"] == problem_type("validation-error")
        assert body["errors"] == [{"field": "body", "message": "Refused."}]
    else:
        assert body["type"] == problem_type(code.value)
        assert body["detail"] == "Refused." and "errors" not in body


@pytest.mark.parametrize("error", SPECIAL_ERRORS, ids=lambda error: type(error).__name__)
def test_one_handler_serves_the_whole_family(error):
    handler = api._lookup_exception_handler(error)
    assert handler is api._exception_handlers[DomainError]
    status, _body = _answer(error)
    assert status == KIND_STATUS[error.kind]


def test_field_errors_are_listed_and_the_rest_names_the_body():
    status, body = _answer(
        ProductError(ProductErrorCode.INVALID, {"moq": ["Too small."], "__all__": ["And more."]})
    )
    assert status == 422
    assert body["errors"] == [
        {"field": "moq", "message": "Too small."},
        {"field": "body", "message": "And more."},
    ]


def test_a_state_refusal_naming_fields_lists_them():
    status, body = _answer(
        ProductError(ProductErrorCode.NOT_PUBLISHABLE, {"title": ["Give it a title."]})
    )
    assert status == 409
    assert body["type"].endswith("/not-publishable")
    assert body["title"] == "The product cannot be published yet"
    assert body["errors"] == [{"field": "title", "message": "Give it a title."}]


def test_titles_are_in_the_clients_language():
    _status, english = _answer(SourcingError(SourcingErrorCode.QUOTA_EXCEEDED, "x"))
    _status, chinese = _answer(SourcingError(SourcingErrorCode.QUOTA_EXCEEDED, "x"), "zh-hans")
    assert english["title"] == "Monthly quota used up"
    assert chinese["title"] != english["title"]


def test_every_status_of_a_kind_is_described_in_the_schema(client):
    assert set(KIND_STATUS.values()) <= set(ERROR_DESCRIPTIONS)
    schema = client.get("/api/v1/openapi.json").json()
    listed = {
        int(status)
        for operations in schema["paths"].values()
        for operation in operations.values()
        for status in operation.get("responses", {})
    }
    assert set(KIND_STATUS.values()) <= listed


def test_no_endpoint_translates_a_refusal_itself():
    """The API modules neither catch an app's errors nor keep mappers of their own."""
    names = {cls.__name__ for cls in {DomainError, *_family(DomainError)}}
    for path in Path(tradepost.api.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ExceptHandler) and node.type is not None:
                caught = {
                    getattr(part, "id", getattr(part, "attr", "")) for part in ast.walk(node.type)
                }
                assert not caught & names, f"{path.name}:{node.lineno} catches {caught & names}"
            if isinstance(node, ast.FunctionDef):
                assert node.name != "_problem", f"{path.name}:{node.lineno}"


def _family(root: type) -> set[type]:
    found = set()
    for sub in root.__subclasses__():
        found |= {sub, *_family(sub)}
    return found
