"""What every answer to bad input must be: never a 5xx; a refusal saves nothing; an API refusal
is a problem document whose every message is in the client's language."""

from __future__ import annotations

import re

import pytest
from django.http import HttpResponse

from tests.badinput.payloads import Expect
from tests.badinput.world import World, changed_tables

CJK = re.compile(r"[\u3400-\u9fff]")


def in_chinese(text: str) -> bool:
    return bool(CJK.search(text))


def assert_problem(response: HttpResponse, *, chinese: bool) -> dict:
    assert response["Content-Type"] == "application/problem+json", response.content[:300]
    problem = response.json()
    assert problem["status"] == response.status_code
    messages = [problem["title"], problem["detail"]]
    if response.status_code == 422:
        assert problem.get("errors"), problem
    for error in problem.get("errors", []):
        assert error["field"], problem
        messages.append(error["message"])
    for message in messages:
        assert isinstance(message, str) and message.strip(), problem
        if chinese:
            assert in_chinese(message), f"not in the client's language: {message!r}"
    return problem


def assert_answered(
    response: HttpResponse, world: World, expect: Expect, *, refused: bool | None = None
) -> None:
    """No 5xx; a refusal saved nothing; `Expect.REFUSED` input was refused.

    `refused` says whether the answer is a refusal, when its status does not (a page that
    shows the form again with its errors, a redirect with an error message)."""
    status = response.status_code
    assert status < 500, response.content[:500]
    if refused is None:
        refused = status >= 400
    if refused:
        assert changed_tables(world) == [], "a refused write changed stored rows"
    elif expect is Expect.REFUSED:
        pytest.fail(f"bad input was accepted ({status}): {response.content[:300]!r}")
