"""Bad input against every write operation of the API (read from its OpenAPI schema): each
field of each body gets each bad value of its kind, and each body is replaced by each bad body.
The answer is never a 5xx; a refusal is a problem document in the client's language (the tests
ask in Simplified Chinese) and saves nothing."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.badinput.api_cases import (
    BODY_OVERRIDES,
    IGNORABLE,
    OPERATIONS,
    PATH_OVERRIDES,
    PATH_VALUES,
    SCHEMA,
    Operation,
    Request,
    valid_request,
    with_body,
    with_field,
    with_form_field,
)
from tests.badinput.checks import assert_answered, assert_problem
from tests.badinput.payloads import BAD_BODIES, FIELD_VALUES, OVERLONG, Body, Expect, FieldValue
from tests.badinput.world import World

pytestmark = pytest.mark.django_db


def send(http: Client, world: World, request: Request, language: str = "zh-hans"):
    http.cookies.clear()
    return http.generic(
        request.method.upper(),
        request.url,
        request.body,
        content_type=request.content_type,
        headers={
            "Authorization": f"Bearer {request.secret or world.api_secret}",
            "Accept-Language": language,
        },
    )


def answer(http: Client, world: World, request: Request, expect: Expect) -> None:
    response = send(http, world, request)
    assert_answered(response, world, expect)
    if response.status_code >= 400:
        assert_problem(response, chinese=True)


def test_every_write_operation_is_found():
    methods = {operation.method for operation in OPERATIONS}
    assert len(OPERATIONS) >= 25, [operation.id for operation in OPERATIONS]
    assert methods == {"post", "put", "patch", "delete"}
    assert sum(1 for operation in OPERATIONS if operation.content_type) >= 15
    assert len(FIELD_CASES) >= 500
    for operation in OPERATIONS:
        unknown = set(operation.parameters) - set(PATH_VALUES)
        assert not unknown, f"{operation.id}: add {unknown} to PATH_VALUES"
    assert set(PATH_OVERRIDES) <= set(SCHEMA["paths"])
    assert set(BODY_OVERRIDES) <= set(SCHEMA["paths"])


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda o: o.id)
def test_the_valid_request_is_accepted(http, world, operation: Operation):
    """So that the bad variants below are refused for their bad part, not another."""
    response = send(http, world, valid_request(operation, world))
    assert response.status_code < 300, (operation.id, response.content[:500])


FIELD_CASES = [
    pytest.param(operation, path, bad, id=f"{operation.id} {'.'.join(map(str, path))} {bad.name}")
    for operation in OPERATIONS
    for path, kind in operation.fields()
    for bad in FIELD_VALUES.get(kind, [])
]


@pytest.mark.parametrize(("operation", "path", "bad"), FIELD_CASES)
def test_a_bad_field_is_refused(http, world, operation: Operation, path, bad: FieldValue):
    ignorable = ".".join(map(str, path)) in IGNORABLE
    expect = Expect.ANY if ignorable else bad.expect
    answer(http, world, with_field(operation, world, path, bad), expect)


FORM_FIELD_CASES = [
    pytest.param(operation, name, value, id=f"{operation.id} {name} {label}")
    for operation in OPERATIONS
    for name in operation.form_fields()
    for label, value in (("nul", "x\x00y"), ("overlong", OVERLONG))
]


@pytest.mark.parametrize(("operation", "name", "value"), FORM_FIELD_CASES)
def test_a_bad_form_field_is_refused(http, world, operation: Operation, name: str, value: str):
    answer(http, world, with_form_field(operation, world, name, value), Expect.REFUSED)


@pytest.mark.parametrize("body", BAD_BODIES, ids=lambda b: b.name)
@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda o: o.id)
def test_a_bad_body_is_refused(http, world, operation: Operation, body: Body):
    expect = Expect.REFUSED if operation.content_type else Expect.ANY
    if body.name == "empty" and operation.body_optional:
        expect = Expect.ANY  # no body at all: the defaults
    answer(http, world, with_body(operation, world, body.name, body.content_type), expect)


PATH_CASES = [
    pytest.param(operation, name, value, id=f"{operation.id} {name} {label}")
    for operation in OPERATIONS
    for name in operation.parameters
    for label, value in (
        ("huge", "1" + "0" * 40),
        ("negative", "-1"),
        ("words", "twelve"),
        ("overlong", "x" * 5_000),
        ("non-ascii", "保温杯"),
    )
]


@pytest.mark.parametrize(("operation", "name", "value"), PATH_CASES)
def test_a_bad_path_parameter_is_refused(http, world, operation: Operation, name, value):
    request = valid_request(operation, world)
    request.url = operation.url(world, {name: value})
    answer(http, world, request, Expect.REFUSED)
