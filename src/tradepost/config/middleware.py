"""Refusing text no database can store before any view sees it.

A NUL character is refused by PostgreSQL and stored by SQLite; an unpaired surrogate (a JSON
string may hold one: "\\ud800") cannot be encoded at all. Either would fail deep inside a write
(a 500, or a record stored on one database and refused on the other). This middleware answers
both the same way on every database, before anything is written:

- a NUL in the path or in a query parameter: 400;
- a NUL or an unpaired surrogate anywhere in a JSON body (keys included), or a NUL in a field
  of a form body sent to the API (multipart: a message with files): 422, naming the field,
  like any other invalid field.

What cannot be stored is decided once, by `core.cleaning.unstorable` (the rule every entry
point uses); the path and the parameters are decoded with replacement characters, so only a
NUL can reach them.

API requests get a problem document (`application/problem+json`), pages a 400 page in the
visitor's language.
Pages' form posts need nothing here: Django's form fields refuse NUL characters themselves,
and form bodies are decoded with replacement characters, so no surrogate survives them. The
API's form fields are plain strings, which is why it is checked here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import render
from django.utils.translation import gettext as _

from tradepost.api.problems import problem_response, render_problem, validation_problem
from tradepost.core.cleaning import UNSTORABLE_MESSAGE, storable, unstorable

API_PREFIX = "/api/"
JSON_METHODS = frozenset({"POST", "PUT", "PATCH"})


def unstorable_fields(value: Any, path: str = "") -> Iterator[str]:
    """The dotted paths ("items.0.name") of the strings in a decoded JSON value that hold a
    NUL or an unpaired surrogate; a key holding one names itself. Walked with a list, not
    recursion: a body may nest as deep as the JSON reader goes."""
    pending: list[tuple[str, Any, bool]] = [(path, value, False)]  # (path, value, bad key)
    while pending:
        path, value, bad_key = pending.pop()
        if bad_key:
            yield path
        elif isinstance(value, str):
            if unstorable(value):
                yield path or "body"
        elif isinstance(value, dict | list):
            items = value.items() if isinstance(value, dict) else enumerate(value)
            children = []
            for key, item in items:
                name = f"{path}.{key}" if path else str(key)
                if isinstance(key, str) and unstorable(key):
                    children.append((storable(name, nul="?", surrogate="?"), None, True))
                else:
                    children.append((name, item, False))
            pending.extend(reversed(children))


def _has_nul(request: HttpRequest) -> bool:
    """Whether the path or a query parameter holds a NUL (decoded with replacement
    characters, they hold no surrogate)."""
    if unstorable(request.path):
        return True
    return any(
        unstorable(key) or any(unstorable(value) for value in request.GET.getlist(key))
        for key in request.GET
    )


def _json_fields(request: HttpRequest) -> list[str]:
    if request.method not in JSON_METHODS:
        return []
    if "json" not in request.META.get("CONTENT_TYPE", ""):
        return []
    try:
        data = json.loads(request.body)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than Python reads
        return []  # not JSON: the endpoint answers that itself
    return list(dict.fromkeys(unstorable_fields(data)))


def _form_fields(request: HttpRequest) -> list[str]:
    """The fields of a form body (URL-encoded or multipart) that hold a NUL (decoded with
    replacement characters, they hold no surrogate)."""
    if request.method not in JSON_METHODS:
        return []
    content_type = request.META.get("CONTENT_TYPE", "")
    if not content_type.startswith(("multipart/form-data", "application/x-www-form-urlencoded")):
        return []
    try:
        fields = request.POST
    except MultiPartParserError:
        raise MalformedForm from None
    return [
        storable(key, nul="?", surrogate="?")
        for key, values in fields.lists()
        if unstorable(key) or any(unstorable(value) for value in values)
    ]


class MalformedForm(Exception):
    """A multipart body that cannot be read (no boundary, a broken part)."""


class UnstorableTextMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        is_api = request.path.startswith(API_PREFIX)
        if _has_nul(request):
            if is_api:
                return problem_response(
                    request,
                    status=400,
                    code="bad-request",
                    title=_("The address holds a character that is not allowed"),
                    detail=_("Remove the NUL character from the path or the parameters."),
                )
            return render(request, "web/bad_request.html", status=400)
        if is_api:
            try:
                fields = _json_fields(request) or _form_fields(request)
            except MalformedForm:
                return problem_response(
                    request,
                    status=400,
                    code="bad-request",
                    title=_("The request body cannot be read"),
                    detail=_(
                        "Send a multipart/form-data body with its boundary in the Content-Type "
                        "header, or a JSON body."
                    ),
                )
            if fields:
                message = str(UNSTORABLE_MESSAGE)
                problem = validation_problem(
                    [{"field": field, "message": message} for field in fields]
                )
                return render_problem(request, problem)
        return self.get_response(request)


class ApiProblemMiddleware:
    """Every error the API answers is a problem document, including those no endpoint
    produced: an unknown address (404), a method the endpoint does not take (405, with its
    `Allow` header) and an unexpected error (500)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            response.status_code < 400
            or not request.path.startswith(API_PREFIX)
            or "json" in response.get("Content-Type", "")
        ):
            return response
        status = response.status_code
        if status == 500 and settings.DEBUG:
            return response  # the technical page is more use to a developer
        titles = {
            400: (_("The request is not valid"), "bad-request"),
            403: (_("Not allowed"), "forbidden"),
            404: (_("Not found"), "not-found"),
            405: (_("This method is not allowed here"), "method-not-allowed"),
            500: (_("Something went wrong on our side"), "server-error"),
        }
        title, code = titles.get(status, (response.reason_phrase, "error"))
        problem = problem_response(request, status=status, code=code, title=title)
        if response.has_header("Allow"):
            problem["Allow"] = response["Allow"]
        return problem
