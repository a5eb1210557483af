"""Schemas several parts of the API answer with: one class each, so the OpenAPI document has
one component of each name, and it is the shape every endpoint answers (two classes of one
name became one component, and the answers of the other did not match it)."""

from __future__ import annotations

from ninja import Schema
from pydantic import Field

from tradepost.api.bodies import JsonBody


class CompanyRef(Schema):
    """A company named in an answer: its id, its slug (its page is /companies/<slug>/) and
    its name in the request's language."""

    id: int
    slug: str
    name: str


class AttachmentOut(Schema):
    """A file attached to a request, a quotation or a message."""

    id: int
    name: str
    content_type: str
    size: int
    url: str = Field(description="GET it with the same credentials")


class RejectIn(JsonBody):
    """An operator's refusal (a held listing, a verification request) and why."""

    reason: str = Field(
        description="Why, told to the company in its language (at most 1,000 characters)"
    )
