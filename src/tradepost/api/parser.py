"""Reading JSON request bodies: every body the API takes is a JSON object of fields.

django-ninja's schemas also read attributes of objects (to serialise models), so without
this a body that is not an object passed as one: `[null, null]` as an empty change, and the
string `"AAA"` as a translation titled "Aaa" (the string's `title` method). A body that is
not JSON answers 400, and one that is JSON but not an object 422 naming `body`, each as a
problem document. A body sent under another Content-Type (text/plain, a form) answers 400
too: it would otherwise be read all the same, past the check for text no database stores
(`UnstorableTextMiddleware` reads the bodies that say they are JSON).
"""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja.parser import Parser

from tradepost.api.problems import ApiProblem, validation_problem


class JsonObjectParser(Parser):
    @staticmethod
    def not_json() -> ApiProblem:
        return ApiProblem(
            400,
            "not-json",
            _("The body is not sent as JSON"),
            _("Send it with the header Content-Type: application/json."),
        )

    def parse_body(self, request: HttpRequest) -> dict[str, Any]:
        if "json" not in (request.content_type or ""):  # as UnstorableTextMiddleware tells
            raise self.not_json()
        try:
            data = json.loads(request.body)
        except (ValueError, RecursionError):  # RecursionError: nested deeper than Python reads
            raise ApiProblem(
                400,
                "invalid-json",
                _("The body is not valid JSON"),
                _("Send the fields as one JSON object."),
            ) from None
        if not isinstance(data, dict):
            raise validation_problem(
                [{"field": "body", "message": _("Send the fields as one JSON object.")}]
            )
        return data
