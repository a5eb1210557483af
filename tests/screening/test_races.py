"""Two operators adding terms that fold alike at once, and two deciding one held listing at
once, on real connections (PostgreSQL only: SQLite runs one write transaction at a time)."""

from __future__ import annotations

import pytest

from tests.factories.accounts import make_operator
from tests.factories.screening import held_product
from tests.races import ON_CONCURRENT_WRITERS, one_decision_wins
from tradepost.audit.models import AuditEntry
from tradepost.catalog import services as catalog_services
from tradepost.catalog.errors import ProductError, ProductErrorCode
from tradepost.catalog.models import Product
from tradepost.screening import services
from tradepost.screening.errors import ScreeningError, ScreeningErrorCode
from tradepost.screening.models import BannedTerm

pytestmark = ON_CONCURRENT_WRITERS


@pytest.mark.parametrize("attempt", range(3))
def test_one_of_two_terms_that_fold_alike_is_added(cast, race, attempt):
    other = make_operator()
    results = race(
        lambda: services.banned_term_create(actor=cast.operator, term="ivory"),
        lambda: services.banned_term_create(actor=other, term="ＩＶＯＲＹ"),
    )
    refused = [r for r in results if isinstance(r, ScreeningError)]
    assert len(refused) == 1, results
    assert refused[0].code == ScreeningErrorCode.DUPLICATE
    assert BannedTerm.objects.count() == 1
    assert AuditEntry.objects.filter(action="banned_term.create").count() == 1


@pytest.mark.parametrize("attempt", range(3))
def test_two_operators_on_one_held_listing_one_decision_wins(cast, race, attempt):
    product = held_product(cast.member, cast.company)
    other = make_operator()
    results = race(
        lambda: catalog_services.product_review_approve(actor=cast.operator, product=product),
        lambda: catalog_services.product_review_reject(
            actor=other, product=product, reason="No ivory."
        ),
    )
    refused, decided = one_decision_wins(results, ProductError, Product)
    assert refused.code == ProductErrorCode.NOT_HELD
    assert Product.objects.get(pk=product.pk).status == decided.status
    assert AuditEntry.objects.filter(action__startswith="product.review_").count() == 1
