"""The cast of the reviews tests: `cast.company` awards a quotation of a supplier company with
an owner, an admin and a plain member (`supplier_cast`)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.factories.companies import Cast, add_member, make_trader
from tests.factories.reviews import make_award
from tradepost.accounts.models import User
from tradepost.companies.models import Company, Role
from tradepost.sourcing.models import Quotation


@dataclass
class Award:
    """`cast.company` (the buyer) awarded `quotation` to `supplier`."""

    cast: Cast
    quotation: Quotation
    supplier: Company
    supplier_owner: User
    supplier_admin: User
    supplier_member: User

    def user(self, who: str) -> User | None:
        """A person by role: the buyer cast's names, or supplier_owner / _admin / _member."""
        if who.startswith("supplier_"):
            return getattr(self, who)
        return self.cast.user(who)


@pytest.fixture
def award(cast) -> Award:
    supplier_owner, supplier = make_trader()
    _buyer, _supplier, quotation = make_award(buyer=cast.owner, supplier=supplier_owner)
    return Award(
        cast=cast,
        quotation=quotation,
        supplier=supplier,
        supplier_owner=supplier_owner,
        supplier_admin=add_member(supplier, role=Role.ADMIN),
        supplier_member=add_member(supplier, role=Role.MEMBER),
    )
