"""Every write operation of the API, read from its OpenAPI schema, with a valid request for each
(path parameters naming the test user's own objects, a body built from the schema) and the
bad variants of that request.

A new operation is covered without editing this file, unless it takes a path parameter or a
body field whose valid value cannot be guessed from the schema: `test_api.py` then fails
naming it, and PATH_VALUES or BODY_VALUES below get a line.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart
from django.utils import timezone

from tests.badinput.payloads import PDF, FieldValue, catalogue_csv, nested, pictures_zip, png
from tests.badinput.world import World
from tradepost.api.urls import api

WRITE_METHODS = ("post", "put", "patch", "delete")
JSON = "application/json"
MULTIPART = "multipart/form-data"

SCHEMA = api.get_openapi_schema()
COMPONENTS = SCHEMA["components"]["schemas"]

Path = tuple[str | int, ...]


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = COMPONENTS[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def _options(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The non-null alternatives of a schema (`X | None` is anyOf [X, null])."""
    schema = _resolve(schema)
    options = schema.get("anyOf") or schema.get("oneOf") or [schema]
    return [_resolve(option) for option in options if option.get("type") != "null"]


def kind_of(schema: dict[str, Any]) -> str:
    """text, number, bool, list, object or file."""
    options = _options(schema)
    types = {option.get("type") for option in options}
    if any(option.get("format") == "binary" for option in options):
        return "file"
    if types & {"number", "integer"}:
        return "number"  # a decimal is "number or string"
    for name, kind in (("string", "text"), ("boolean", "bool"), ("array", "list")):
        if name in types:
            if kind == "list" and kind_of(options[0].get("items", {})) == "file":
                return "file"
            return kind
    return "object"


@dataclass(frozen=True)
class Operation:
    method: str
    path: str  # as in the schema: /api/v1/me/products/{product_id}
    parameters: tuple[str, ...]
    content_type: str | None  # of its body; None when it takes none
    body_schema: dict[str, Any] | None
    #: The body may be left out (publishing a product): an empty body is no bad body then.
    body_optional: bool = False

    @property
    def id(self) -> str:
        return f"{self.method.upper()} {self.path.removeprefix('/api/v1')}"

    def url(self, world: World, replace: dict[str, str] | None = None) -> str:
        """The address naming the test user's objects (or, for the parameters in `replace`,
        those values)."""
        url = self.path
        for name in self.parameters:
            value = PATH_OVERRIDES.get(self.path, {}).get(name) or PATH_VALUES[name]
            text = (replace or {}).get(name) or str(value(world))
            url = url.replace("{" + name + "}", quote(text))
        return url

    def secret(self, world: World) -> str:
        """The API token the operation is sent with."""
        return SECRETS.get(self.path, lambda w: w.api_secret)(world)

    def fields(self) -> list[tuple[Path, str]]:
        """The leaves of the body (list items and nested objects included) and their kinds."""
        return list(_leaves(self.body_schema or {}, ())) if self.content_type == JSON else []

    def form_fields(self) -> list[str]:
        """The text fields of a multipart body."""
        if self.content_type != MULTIPART:
            return []
        properties = (self.body_schema or {}).get("properties", {})
        return [name for name, schema in properties.items() if kind_of(schema) == "text"]


def _leaves(schema: dict[str, Any], prefix: Path) -> Iterator[tuple[Path, str]]:
    for name, field in _resolve(schema).get("properties", {}).items():
        kind = kind_of(field)
        path = (*prefix, name)
        if kind == "object":
            yield from _leaves(_options(field)[0], path)
            continue
        yield path, kind
        if kind == "list":
            items = _resolve(_options(field)[0].get("items", {}))
            if kind_of(items) == "object":
                yield from _leaves(items, (*path, 0))
            else:
                yield (*path, 0), kind_of(items)


def write_operations() -> list[Operation]:
    operations = []
    for path, methods in SCHEMA["paths"].items():
        for method, spec in methods.items():
            if method not in WRITE_METHODS:
                continue
            content = spec.get("requestBody", {}).get("content", {})
            content_type = next(iter(content), None)
            # An optional body's schema is `X | None`: its fields are X's.
            body_schema = _options(content[content_type]["schema"])[0] if content_type else None
            optional = content_type is not None and spec["requestBody"].get("required") is False
            parameters = tuple(p["name"] for p in spec.get("parameters", []) if p["in"] == "path")
            operations.append(
                Operation(method, path, parameters, content_type, body_schema, optional)
            )
    return operations


OPERATIONS = write_operations()

# --- valid values -----------------------------------------------------------------------------

#: Path parameters, by name: the test user's own objects.
PATH_VALUES: dict[str, Callable[[World], Any]] = {
    "product_id": lambda w: w.product.pk,
    "image_id": lambda w: w.image.pk,
    "language": lambda w: "zh-hans",
    "request_id": lambda w: w.request.pk,
    "quotation_id": lambda w: w.quotation_received.pk,
    "conversation_id": lambda w: w.conversation.pk,
    "verification_id": lambda w: w.verification.pk,
    "invoice_id": lambda w: w.invoice.pk,
    "report_id": lambda w: w.report.pk,
    "review_id": lambda w: w.review_received.pk,
    "import_id": lambda w: w.import_job.pk,
    "banned_term_id": lambda w: w.banned_term.pk,
    "endpoint_id": lambda w: w.webhook_endpoint.pk,
    "delivery_id": lambda w: w.webhook_delivery.pk,
    "alert_id": lambda w: w.alert.pk,
}
#: Where a parameter means a different object: a supplier quotes on another company's
#: request, and attaches files to its own quotation; the showcase names a showcased product.
PATH_OVERRIDES: dict[str, dict[str, Callable[[World], Any]]] = {
    "/api/v1/requests/{request_id}/quotations": {"request_id": lambda w: w.their_request.pk},
    "/api/v1/requests/quotations/{quotation_id}/attachments": {
        "quotation_id": lambda w: w.quotation_sent.pk
    },
    # A review is written on an award the test user's company made.
    "/api/v1/requests/quotations/{quotation_id}/review": {
        "quotation_id": lambda w: w.award_to_review.pk
    },
    "/api/v1/me/showcase/{product_id}": {"product_id": lambda w: w.showcased_product.pk},
    # An operator decides a listing held for review.
    "/api/v1/operator/held-listings/{product_id}/approve": {
        "product_id": lambda w: w.held_product.pk
    },
    "/api/v1/operator/held-listings/{product_id}/reject": {
        "product_id": lambda w: w.held_product.pk
    },
}


def _later(days: int) -> str:
    return (timezone.now() + timedelta(days=days)).isoformat()


#: Body fields whose valid value the schema does not tell, by name.
BODY_VALUES: dict[str, Callable[[World], Any]] = {
    "title": lambda w: "Vacuum flask 500 ml",
    "original_language": lambda w: "en",
    "category_id": lambda w: w.leaf_category_id,
    "description": lambda w: "<p>Double wall, keeps drinks hot.</p>",
    "attributes": lambda w: [{"name": "Material", "value": "304 steel"}],
    "moq_unit": lambda w: "pieces",
    "supply_capacity_unit": lambda w: "pieces",
    "unit": lambda w: "pieces",
    "currency": lambda w: "USD",
    "target_currency": lambda w: "USD",
    "incoterms": lambda w: ["FOB"],
    "incoterm": lambda w: "FOB",
    "preferred_incoterm": lambda w: "FOB",
    "payment_terms": lambda w: ["tt"],
    "hs_code": lambda w: "",
    "origin_country": lambda w: "CN",
    "country": lambda w: "CN",
    "destination_country": lambda w: "NL",
    "required_certifications": lambda w: ["CE"],
    "certifications": lambda w: ["ISO 9001"],
    "deadline": lambda w: _later(14),
    "valid_until": lambda w: (timezone.localdate() + timedelta(days=30)).isoformat(),
    "price_min": lambda w: "2.5",
    "price_max": lambda w: "3.5",
    "sample_cost": lambda w: "15",
    "product_id": lambda w: w.their_product.pk,
    "ids": lambda w: [1],
    "image_ids": lambda w: [w.image.pk],
    "business_types": lambda w: ["manufacturer"],
    "main_markets": lambda w: ["western_europe"],
    "employee_range": lambda w: "51-200",
    "year_established": lambda w: 2005,
    "export_share": lambda w: 60,
    "website": lambda w: "https://example.com",
    "checked": lambda w: ["legal_name", "address"],
    "action": lambda w: "subscribe",
    "plan_id": lambda w: w.gold_plan_id,
    "email": lambda w: "accounts@flask-works.example",
    "address": lambda w: "18 Harbour Road, Ningbo",
    "target": lambda w: "product",
    "target_id": lambda w: w.their_product.pk,
    "reason": lambda w: "counterfeit",  # a report's reason; free text elsewhere
    "rating": lambda w: 4,  # a review's stars
    "mode": lambda w: "valid",  # a catalogue import's
    "encoding": lambda w: "utf-8",  # a catalogue file's
    "url": lambda w: "https://erp.flask-works.example/orders",  # a webhook endpoint's
    "events": lambda w: ["inquiry.created", "quotation.received"],
    "kind": lambda w: "product",  # a trade alert's (what it looks for; the world's alert's)
    "frequency": lambda w: "daily",  # a trade alert's
}
#: Body fields whose valid value differs from BODY_VALUES' on one operation: a moderation
#: action (the membership's is "subscribe"); the showcase's product (a Gold supplier's own).
BODY_OVERRIDES: dict[str, dict[str, Callable[[World], Any]]] = {
    # No length: a number of days goes only with a suspension.
    "/api/v1/operator/reports/{report_id}/decision": {
        "action": lambda w: "hide",
        "days": lambda w: None,
    },
    "/api/v1/operator/moderation": {"action": lambda w: "warn", "days": lambda w: None},
    # The showcase: a Gold supplier's own published product.
    "/api/v1/me/showcase": {"product_id": lambda w: w.showcase_product.pk},
    # A banned term's language: "any" or a listing language.
    "/api/v1/operator/banned-terms": {"language": lambda w: "any"},
    "/api/v1/operator/banned-terms/bulk": {"language": lambda w: "any"},
    "/api/v1/operator/banned-terms/{banned_term_id}": {"language": lambda w: "en"},
    # A trade alert's language: the one its emails are written in.
    "/api/v1/alerts": {"language": lambda w: "en"},
    "/api/v1/alerts/{alert_id}": {"language": lambda w: "en"},
}
#: Body fields left out of the valid body: another target than the one the test means.
OMITTED = frozenset({"company_id"})
#: Fields whose bad value may be ignored rather than refused: the alternative the valid body
#: leaves out, and ids that are not the user's (marking them read is ignored by design).
IGNORABLE = frozenset({"company_id", "ids.0"})
FILE_VALUES: dict[str, Callable[[], SimpleUploadedFile]] = {
    "image": lambda: SimpleUploadedFile("photo.png", png(), "image/png"),
    "file": lambda: SimpleUploadedFile("spec.pdf", PDF, "application/pdf"),
    "files": lambda: SimpleUploadedFile("spec.pdf", PDF, "application/pdf"),
    "catalogue": lambda: SimpleUploadedFile("catalogue.csv", catalogue_csv(), "text/csv"),
    "pictures": lambda: SimpleUploadedFile("pictures.zip", pictures_zip(), "application/zip"),
    **{
        kind: lambda: SimpleUploadedFile("licence.pdf", PDF, "application/pdf")
        for kind in ("business_licence", "export_licence", "certification", "other")
    },
}
#: Whose API token an operation is sent with, where it is not the test user's: operators
#: decide verification requests, confirm transfers and moderate; a company with a request
#: waiting withdraws it; a Gold supplier chooses its showcase.
SECRETS: dict[str, Callable[[World], str]] = {
    "/api/v1/operator/verification/{verification_id}/approve": lambda w: w.operator_secret,
    "/api/v1/operator/verification/{verification_id}/reject": lambda w: w.operator_secret,
    "/api/v1/me/verification/withdraw": lambda w: w.verifying_secret,
    "/api/v1/operator/invoices/{invoice_id}/payment": lambda w: w.operator_secret,
    "/api/v1/operator/reports/{report_id}/decision": lambda w: w.operator_secret,
    "/api/v1/operator/moderation": lambda w: w.operator_secret,
    "/api/v1/operator/reviews/{review_id}/hide": lambda w: w.operator_secret,
    "/api/v1/operator/reviews/{review_id}/restore": lambda w: w.operator_secret,
    "/api/v1/me/showcase": lambda w: w.showcaser_secret,
    "/api/v1/me/showcase/{product_id}": lambda w: w.showcaser_secret,
    **{
        path: lambda w: w.operator_secret
        for path in (
            "/api/v1/operator/banned-terms",
            "/api/v1/operator/banned-terms/bulk",
            "/api/v1/operator/banned-terms/{banned_term_id}",
            "/api/v1/operator/held-listings/{product_id}/approve",
            "/api/v1/operator/held-listings/{product_id}/reject",
        )
    },
}


def _valid(schema: dict[str, Any], world: World) -> Any:
    kind = kind_of(schema)
    option = _options(schema)[0] if _options(schema) else {}
    if kind == "object":
        return {
            name: BODY_VALUES[name](world) if name in BODY_VALUES else _valid(field, world)
            for name, field in option.get("properties", {}).items()
            if name not in OMITTED
        }
    if kind == "list":
        return [_valid(option.get("items", {}), world)]
    if kind == "number":
        return 10
    if kind == "bool":
        return False
    if option.get("format") == "date":
        return (timezone.localdate() + timedelta(days=30)).isoformat()
    if option.get("format") == "date-time":
        return _later(14)
    return "Sample text"


def valid_body(operation: Operation, world: World) -> dict[str, Any]:
    if operation.body_schema is None:
        return {}
    if operation.content_type == MULTIPART:
        data: dict[str, Any] = {}
        for name, schema in operation.body_schema.get("properties", {}).items():
            kind = kind_of(schema)
            if kind == "file":
                data[name] = FILE_VALUES[name]()
            elif name in BODY_VALUES:
                data[name] = BODY_VALUES[name](world)
            else:
                data[name] = "Thank you, see the file."
        return data
    body = _valid(operation.body_schema, world)
    for name, value in BODY_OVERRIDES.get(operation.path, {}).items():
        body[name] = value(world)
    return body


# --- requests ---------------------------------------------------------------------------------


@dataclass
class Request:
    method: str
    url: str
    body: bytes
    content_type: str
    secret: str = ""  # the API token to send; the test user's when empty


def encode(operation: Operation, world: World, body: dict[str, Any]) -> Request:
    url, secret = operation.url(world), operation.secret(world)
    if operation.content_type == MULTIPART:
        multipart = encode_multipart(BOUNDARY, body)
        return Request(operation.method, url, multipart, MULTIPART_CONTENT, secret)
    return Request(operation.method, url, json.dumps(body).encode(), JSON, secret)


def valid_request(operation: Operation, world: World) -> Request:
    return encode(operation, world, valid_body(operation, world))


_MARK = "\x01bad-value\x01"


def _set(body: Any, path: Path, value: Any) -> None:
    for step in path[:-1]:
        body = body[step]
    body[path[-1]] = value


def with_field(operation: Operation, world: World, path: Path, bad: FieldValue) -> Request:
    """The valid request with one field (`path` in the body) holding `bad`."""
    body = copy.deepcopy(valid_body(operation, world))
    _set(body, path, _MARK)
    text = json.dumps(body).replace(json.dumps(_MARK), bad.json)
    return Request(
        operation.method, operation.url(world), text.encode(), JSON, operation.secret(world)
    )


def with_form_field(operation: Operation, world: World, name: str, value: str) -> Request:
    body = valid_body(operation, world)
    body[name] = value
    return encode(operation, world, body)


def _first_text_path(operation: Operation) -> Path:
    for path, kind in operation.fields():
        if kind == "text" and len(path) == 1:
            return path
    return ("note",)


def with_body(operation: Operation, world: World, name: str, content_type: str) -> Request:
    """A whole bad body in place of the valid one."""
    body = valid_body(operation, world) if operation.content_type == JSON else {}
    text_path = _first_text_path(operation)
    text = json.dumps(body)

    def replacing_text(value: Any) -> dict[str, Any]:
        changed = copy.deepcopy(body)
        _set(changed, text_path, value)
        return changed

    raw: bytes
    if name == "truncated":
        raw = text[: max(len(text) // 2, 2)].encode()
    elif name == "trailing-comma":
        raw = (text[:-1] + ", }").encode() if text != "{}" else b'{"note": "x",}'
    elif name == "nested-10k":
        raw = nested().encode()
    elif name == "nested-10k-in-a-field":
        raw = json.dumps(replacing_text(_MARK)).replace(json.dumps(_MARK), nested()).encode()
    elif name == "latin-1":
        raw = json.dumps(replacing_text("Café Zoë"), ensure_ascii=False).encode("latin-1")
    elif name == "gbk":
        raw = json.dumps(replacing_text("不锈钢保温杯"), ensure_ascii=False).encode("gbk")
    elif name == "huge":
        size = settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1
        raw = json.dumps(replacing_text("x" * size)).encode()
    elif name == "empty":
        raw = b""
    elif name == "top-level-list":
        raw = b"[]"
    elif name == "top-level-string":
        raw = b'"Vacuum flask"'
    elif name == "top-level-null":
        raw = b"null"
    else:  # a valid JSON body under another Content-Type
        raw = text.encode()
    return Request(
        operation.method, operation.url(world), raw, content_type, operation.secret(world)
    )
