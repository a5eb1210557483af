"""What the report tests report: things of the cast's company (tests/factories/companies.py)
that everybody, or the other company, can see."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tests.factories.catalog import make_product
from tests.factories.sourcing import make_request
from tradepost.catalog.models import Product
from tradepost.companies.models import Company
from tradepost.messaging import services as messaging_services
from tradepost.messaging.models import Message
from tradepost.sourcing.models import BuyingRequest


@dataclass
class Reported:
    """The cast's company with a published listing, an open buying request, and a message its
    owner wrote to the other company (which asked first)."""

    company: Company
    product: Product
    request: BuyingRequest
    message: Message

    def target(self, kind: str) -> Any:
        return {
            "product": self.product,
            "company": self.company,
            "request": self.request,
            "message": self.message,
        }[kind]


KINDS = ["product", "company", "request", "message"]


@pytest.fixture
def reported(cast) -> Reported:
    product = make_product(company=cast.company, title="Vacuum flask 500 ml")
    request = make_request(actor=cast.owner, title="Bamboo cutting boards")
    conversation = messaging_services.inquiry_send(
        actor=cast.outsider, company=cast.company, message="Price for 1000 pieces?"
    )
    message = messaging_services.message_send(
        actor=cast.owner, conversation=conversation, body="Pay to my private account first."
    )
    return Reported(company=cast.company, product=product, request=request, message=message)
