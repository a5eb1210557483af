"""The load benchmark's clients (locust): visitors browsing and searching, buyers sending
inquiries and reading answers, suppliers finding requests and quoting.

Every client sends its next request as soon as the last one is answered (no think time), so
the requests per second are what the server can answer for 50 such clients at once. Request
names group URLs by endpoint in the per-endpoint table. Reads the plan that
`bench/load_prepare.py` wrote (LOAD_PLAN, a JSON file).
"""

from __future__ import annotations

import json
import os
import random
from datetime import date, timedelta

from locust import FastHttpUser, constant, task

PLAN = json.loads(open(os.environ["LOAD_PLAN"], encoding="utf-8").read())  # noqa: SIM115
LANGUAGES = ["en", "en", "zh-hans", "zh-hant"]


def _language() -> str:
    return random.choice(LANGUAGES)


class Visitor(FastHttpUser):
    """An anonymous buyer looking around: home, search, product, company, category and
    buying-request pages, in the three languages."""

    weight = 7
    wait_time = constant(0)

    @task(1)
    def home(self) -> None:
        self.client.get(f"/{_language()}/", name="page: home")

    @task(3)
    def search(self) -> None:
        query = random.choice(PLAN["queries"])
        self.client.get(f"/{_language()}/search/", params={"q": query}, name="page: search")

    @task(4)
    def product(self) -> None:
        product = random.choice(PLAN["products"])
        self.client.get(f"/{_language()}/products/{product['path']}/", name="page: product")

    @task(1)
    def company(self) -> None:
        slug = random.choice(PLAN["companies"])
        self.client.get(f"/{_language()}/companies/{slug}/", name="page: company")

    @task(1)
    def category(self) -> None:
        slug = random.choice(PLAN["categories"])
        self.client.get(f"/{_language()}/categories/{slug}/", name="page: category")

    @task(1)
    def requests(self) -> None:
        self.client.get(f"/{_language()}/requests/", name="page: buying requests")


class _Trader(FastHttpUser):
    abstract = True
    wait_time = constant(0)
    role = ""

    def on_start(self) -> None:
        token = random.choice(PLAN[self.role])
        self.headers = {"Authorization": f"Bearer {token}", "Accept-Language": _language()}

    def api_get(self, path: str, name: str, **params: object) -> None:
        self.client.get(f"/api/v1{path}", params=params, headers=self.headers, name=name)


class Buyer(_Trader):
    """A signed-in buyer (API token): inquiries to suppliers, replies, quotations received."""

    weight = 2
    role = "buyers"

    @task(2)
    def inquire(self) -> None:
        product = random.choice(PLAN["products"])
        self.client.post(
            "/api/v1/conversations/inquiries",
            json={
                "product_id": product["id"],
                "quantity": "1000",
                "unit": "pieces",
                "message": "Please quote FOB Ningbo for 1,000 pieces, with lead time.",
            },
            headers=self.headers,
            name="api: send inquiry",
        )

    @task(2)
    def conversations(self) -> None:
        self.api_get("/conversations", "api: conversations")

    @task(1)
    def quotations(self) -> None:
        request_id = random.choice(PLAN["requests"])
        # Another buyer's request answers 404: only the owner sees its quotations.
        with self.client.get(
            f"/api/v1/requests/{request_id}/quotations",
            headers=self.headers,
            name="api: quotations received",
            catch_response=True,
        ) as response:
            if response.status_code in (200, 404):
                response.success()

    @task(2)
    def search(self) -> None:
        self.api_get("/search/products", "api: search", q=random.choice(PLAN["queries"]))


class Supplier(_Trader):
    """A signed-in supplier (API token): matching requests, quoting, its quotations."""

    weight = 1
    role = "suppliers"

    @task(2)
    def matching(self) -> None:
        self.api_get("/requests/matching", "api: matching requests")

    @task(2)
    def quote(self) -> None:
        request_id = random.choice(PLAN["requests"])
        self.client.post(
            f"/api/v1/requests/{request_id}/quotations",
            json={
                "unit_price": f"{random.uniform(1.5, 3.0):.2f}",
                "currency": "USD",
                "price_tiers": [{"min_quantity": "10000", "unit_price": "1.40"}],
                "moq": "500",
                "lead_time_days": 25,
                "incoterm": "FOB",
                "named_place": "Ningbo",
                "payment_terms": ["tt"],
                "valid_until": (date.today() + timedelta(days=30)).isoformat(),
                "sample_available": True,
                "message": "Our best price for this order.",
            },
            headers=self.headers,
            name="api: send quotation",
        )

    @task(1)
    def my_quotations(self) -> None:
        self.api_get("/requests/quotations/mine", "api: my quotations")
