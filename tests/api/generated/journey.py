"""One RFQ journey through a client that openapi-python-client generated from the served schema
(run by tests/api/test_generated_client.py with the generator's own Python, `.venv-codegen`):
a buyer posts a request, a supplier quotes, the buyer lists the quotations and awards one.
Prints what each step answered, as JSON. Arguments: the site's address, the buyer's token, the
supplier's token, a leaf category's id."""

from __future__ import annotations

import datetime
import json
import sys

from tradepost_client import AuthenticatedClient
from tradepost_client.api.buying_requests import (
    award_quotation,
    create_buying_request,
    get_buying_request,
    list_quotations,
    submit_quotation,
)
from tradepost_client.models import PriceTier, QuotationWrite, RequestCreate


def main(base: str, buyer_token: str, supplier_token: str, category: str) -> None:
    buyer = AuthenticatedClient(base_url=base, token=buyer_token, raise_on_unexpected_status=True)
    supplier = AuthenticatedClient(base_url=base, token=supplier_token)
    steps: dict[str, object] = {}
    deadline = datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=10)
    posted = create_buying_request.sync_detailed(
        client=buyer,
        body=RequestCreate(
            title="LED panel lights 600x600",
            category_id=int(category),
            quantity="3000",
            unit="pieces",
            destination_country="DE",
            deadline=deadline,
            preferred_incoterm="CIF",
        ),
    )
    steps["create"] = [int(posted.status_code), type(posted.parsed).__name__]
    request_id = posted.parsed.id
    quoted = submit_quotation.sync_detailed(
        request_id,
        client=supplier,
        body=QuotationWrite(
            unit_price="7.5",
            currency="USD",
            moq="500",
            lead_time_days=25,
            incoterm="FOB",
            named_place="Shenzhen",
            valid_until=datetime.date.today() + datetime.timedelta(days=20),
            price_tiers=[PriceTier(min_quantity="5000", unit_price="7.1")],
        ),
    )
    steps["quote"] = [int(quoted.status_code), type(quoted.parsed).__name__]
    listed = list_quotations.sync_detailed(request_id, client=buyer)
    items = listed.parsed.items
    steps["list"] = [int(listed.status_code), len(items), float(items[0].unit_price)]
    awarded = award_quotation.sync_detailed(items[0].id, client=buyer)
    steps["award"] = [int(awarded.status_code), awarded.parsed.status]
    again = award_quotation.sync_detailed(items[0].id, client=buyer)
    steps["award again"] = [int(again.status_code), type(again.parsed).__name__]
    final = get_buying_request.sync_detailed(request_id, client=buyer)
    steps["request"] = [int(final.status_code), final.parsed.status]
    print(json.dumps(steps))


if __name__ == "__main__":
    main(*sys.argv[1:5])
