"""Accounts and ids for the load benchmark, made in the benchmark's own data folder.

Run inside a configured Django process (`tradepost bench load` does it in a child process
with the profile's settings). Makes buyers and suppliers with companies and API tokens,
buying requests for the suppliers to quote on, and writes everything the load clients need
(tokens, product paths, company and category slugs, request ids, search queries) to a JSON
file. Idempotent: a second run in the same folder reuses what the first made.
"""

from __future__ import annotations

import json
import random
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from tradepost.accounts.models import ApiToken, User
from tradepost.accounts.tokens import token_create
from tradepost.catalog.models import Category, Product, ProductStatus
from tradepost.companies.models import Company, Membership, Role
from tradepost.sourcing import services as sourcing_services
from tradepost.sourcing.models import BuyingRequest

BUYERS = 25
SUPPLIERS = 10
REQUESTS_PER_BUYER = 12
PASSWORD = "load-bench-passphrase-42"

QUERIES_FILE = Path(__file__).with_name("search_queries.json")


def _trader(kind: str, n: int, country: str) -> User:
    email = f"load-{kind}-{n}@example.com"
    user = User.objects.filter(email=email).first()
    if user is None:
        user = User.objects.create_user(
            email, PASSWORD, full_name=f"Load {kind} {n}", email_verified_at=timezone.now()
        )
        company = Company.objects.create(
            slug=f"load-{kind}-{n}",
            legal_name=f"Load {kind.title()} {n} Trading Co., Ltd.",
            country=country,
            business_types=["trading_company"],
        )
        Membership.objects.create(user=user, company=company, role=Role.OWNER)
    return user


def _token(user: User) -> str:
    ApiToken.objects.filter(user=user, name="load bench").delete()
    _token_row, secret = token_create(user=user, name="load bench")
    return secret


def _request_fields(rng: random.Random, category_id: int, title: str) -> dict[str, Any]:
    return {
        "title": title,
        "description": "<p>Regular orders for our stores; samples first.</p>",
        "category_id": category_id,
        "quantity": str(rng.choice([500, 1000, 5000, 20000])),
        "unit": "pieces",
        "target_unit_price": "2.40",
        "target_currency": "USD",
        "destination_country": "NL",
        "destination_port": "Rotterdam",
        "preferred_incoterm": "FOB",
        "required_certifications": [],
        "deadline": timezone.now() + timedelta(days=30),
    }


def prepare(output: Path, *, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    with transaction.atomic():
        buyers = [_trader("buyer", n, "NL") for n in range(BUYERS)]
        suppliers = [_trader("supplier", n, "CN") for n in range(SUPPLIERS)]
    published = Product.objects.filter(status=ProductStatus.PUBLISHED)
    products = list(published.order_by("?").values_list("id", "slug", "title")[:2000])
    if not products:
        raise SystemExit("The load benchmark needs published products: load the demo first.")
    leaves = list(Category.objects.filter(is_leaf=True).values_list("id", "slug")[:400])
    for buyer in buyers:
        have = BuyingRequest.objects.filter(created_by=buyer).count()
        for n in range(have, REQUESTS_PER_BUYER):
            category_id, _slug = rng.choice(leaves)
            title = rng.choice(products)[2][:80] or f"Sourcing request {n}"
            sourcing_services.request_create(
                actor=buyer, **_request_fields(rng, category_id, title)
            )
    request_ids = list(
        BuyingRequest.objects.filter(created_by__in=buyers).values_list("id", flat=True)
    )
    classes = json.loads(QUERIES_FILE.read_text())["classes"]
    queries = [query for members in classes.values() for query in members]
    plan = {
        "buyers": [_token(user) for user in buyers],
        "suppliers": [_token(user) for user in suppliers],
        "products": [{"id": pk, "path": f"{pk}-{slug}"} for pk, slug, _title in products],
        "companies": list(
            Company.objects.exclude(slug__startswith="load-").values_list("slug", flat=True)[:500]
        ),
        "categories": [slug for _id, slug in leaves],
        "requests": request_ids,
        "queries": queries,
    }
    output.write_text(json.dumps(plan))
    return plan
