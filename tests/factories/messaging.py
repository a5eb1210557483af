"""A buyer company and a supplier company with members, and conversations between them
(started through the messaging services, as a buyer starts them)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone

from tests.factories.accounts import make_user
from tests.factories.catalog import make_product
from tests.factories.companies import add_member, make_company
from tradepost.accounts.models import User
from tradepost.catalog.models import Product
from tradepost.companies.models import Company, Role
from tradepost.messaging import services
from tradepost.messaging.models import Conversation


@dataclass
class Parties:
    buyer: User
    buyer_colleague: User
    buyer_company: Company
    supplier_owner: User
    supplier_member: User
    supplier_company: Company
    product: Product


def make_parties(*, supplier_language: str = "en") -> Parties:
    buyer = make_user(full_name="Bea Buyer")
    buyer_company = make_company(owner=buyer, country="NL", legal_name="Rotterdam Imports BV")
    buyer_colleague = add_member(buyer_company, role=Role.MEMBER)
    supplier_owner = make_user(full_name="Wang Wei", preferred_language=supplier_language)
    supplier_company = make_company(owner=supplier_owner, legal_name="义乌好杯子有限公司")
    supplier_member = add_member(
        supplier_company, user=make_user(preferred_language=supplier_language)
    )
    product = make_product(company=supplier_company, title="Vacuum flask 500ml")
    return Parties(
        buyer=buyer,
        buyer_colleague=buyer_colleague,
        buyer_company=buyer_company,
        supplier_owner=supplier_owner,
        supplier_member=supplier_member,
        supplier_company=supplier_company,
        product=product,
    )


def make_conversation(parties: Parties, *, message: str = "Price for 1000 pieces?") -> Conversation:
    return services.inquiry_send(
        actor=parties.buyer,
        product=parties.product,
        quantity="1000",
        unit="pieces",
        message=message,
    )


def answered_conversations(parties: Parties, *, in_time: int, late: int) -> None:
    """Conversations with the parties' supplier, posted five days ago: `in_time` answered
    within 24 hours (after 2), `late` after them (after 40)."""
    posted = timezone.now() - timedelta(days=5)
    for index in range(in_time + late):
        conversation = make_conversation(parties, message=f"question {index}")
        delay = timedelta(hours=2) if index < in_time else timedelta(hours=40)
        Conversation.objects.filter(pk=conversation.pk).update(
            created_at=posted, supplier_first_reply_at=posted + delay
        )
