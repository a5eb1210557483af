"""Writes of the demo marketplace: `demo_load` creates it, in one transaction, into an empty
database. The three demo logins get passwords derived from the site's SECRET_KEY, so they can be
shown again later (`demo_logins`) without being stored anywhere in clear.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from tradepost.accounts.models import User
from tradepost.catalog.models import (
    Product,
    ProductImage,
    ProductStatus,
    ProductTranslation,
)
from tradepost.companies.models import Company, Membership, Role
from tradepost.core.html import sanitize_html
from tradepost.demo.errors import DemoError, DemoErrorCode
from tradepost.demo.generator import (
    DEMO_LOGIN_EMAILS,
    MAX_COMPANIES,
    MAX_PRODUCTS,
    DemoPlan,
    PlanError,
    build_plan,
)
from tradepost.demo.images import StoredPicture, hex_to_rgb, store_picture
from tradepost.demo.selectors import database_has_data, demo_users, leaf_categories
from tradepost.demo.vocabulary import load_vocabulary
from tradepost.search.outbox import OutboxKind, record_changes

BATCH_SIZE = 500
PASSWORD_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"

Progress = Callable[[str], None]


@dataclass(frozen=True)
class DemoLogin:
    role: str
    email: str
    # None when the account's password was changed after the demo was loaded.
    password: str | None
    company: str


@dataclass(frozen=True)
class DemoResult:
    companies: int
    countries: int
    products: int
    translations: int
    pictures: int
    seconds: float
    logins: list[DemoLogin]


def demo_password(role: str) -> str:
    """The password of a demo login: derived from SECRET_KEY, so each site has its own."""
    digest = hmac.new(
        settings.SECRET_KEY.encode(), f"tradepost-demo-login:{role}".encode(), hashlib.sha256
    ).digest()
    chars = [PASSWORD_ALPHABET[byte % len(PASSWORD_ALPHABET)] for byte in digest[:12]]
    return "-".join("".join(chars[i : i + 4]) for i in range(0, 12, 4))


def demo_logins() -> list[DemoLogin]:
    """The demo logins that exist in the database, with their passwords when unchanged."""
    users = demo_users(list(DEMO_LOGIN_EMAILS.values()))
    logins = []
    for role, email in DEMO_LOGIN_EMAILS.items():
        user = users.get(email)
        if user is None:
            continue
        password = demo_password(role)
        membership = Membership.objects.filter(user=user).select_related("company").first()
        logins.append(
            DemoLogin(
                role=role,
                email=email,
                password=password if user.check_password(password) else None,
                company=membership.company.legal_name if membership else "",
            )
        )
    return logins


def _check_counts(companies: int, products: int) -> None:
    if not 2 <= companies <= MAX_COMPANIES:
        raise DemoError(
            _("The number of companies must be between 2 and %(max)d.") % {"max": MAX_COMPANIES},
            code=DemoErrorCode.INVALID_COUNTS,
        )
    if not 0 <= products <= MAX_PRODUCTS:
        raise DemoError(
            _("The number of products must be between 0 and %(max)d.") % {"max": MAX_PRODUCTS},
            code=DemoErrorCode.INVALID_COUNTS,
        )


def _not_empty() -> DemoError:
    return DemoError(
        _(
            "The database already has people, companies or products; the demo marketplace "
            "is only loaded into an empty database."
        ),
        code=DemoErrorCode.DATABASE_NOT_EMPTY,
    )


def _store_pictures(plan: DemoPlan) -> dict[str, StoredPicture]:
    stored = {}
    for key in sorted(plan.pictures):
        spec = plan.pictures[key]
        stored[key] = store_picture(
            key=spec.key,
            shape=spec.shape,
            colour=hex_to_rgb(spec.colour_hex),
            label=spec.label,
            caption=spec.caption,
            style=spec.style,
            swatches=tuple(hex_to_rgb(value) for value in spec.swatches),
        )
    return stored


def demo_load(
    *, seed: int, companies: int, products: int, progress: Progress | None = None
) -> DemoResult:
    """Create the demo marketplace in an empty database, in one transaction."""
    say = progress or (lambda message: None)
    started = time.perf_counter()
    _check_counts(companies, products)
    if database_has_data():
        raise _not_empty()
    leaves = leaf_categories()
    if not leaves:
        raise DemoError(
            _("The category tree is empty; run `tradepost migrate` first."),
            code=DemoErrorCode.NO_CATEGORIES,
        )
    try:
        plan = build_plan(
            seed=seed,
            companies=companies,
            products=products,
            vocab=load_vocabulary(),
            leaves=leaves,
        )
    except PlanError as exc:  # pragma: no cover - the checks above come first
        raise DemoError(str(exc), code=DemoErrorCode.INVALID_COUNTS) from exc
    say(_("Drawing %(count)d product pictures…") % {"count": len(plan.pictures)})
    # Files are written before the transaction, so the database is locked only briefly;
    # they are named after their content and reused by a later run.
    pictures = _store_pictures(plan)
    say(_("Writing companies and products…"))
    with transaction.atomic():
        if database_has_data():
            raise _not_empty()
        _write(plan, pictures)
    return DemoResult(
        companies=len(plan.companies),
        countries=len({company.country for company in plan.companies}),
        products=len(plan.products),
        translations=sum(len(product.translations) for product in plan.products),
        pictures=len(pictures),
        seconds=time.perf_counter() - started,
        logins=demo_logins(),
    )


def _write(plan: DemoPlan, pictures: dict[str, StoredPicture]) -> None:
    now = timezone.now()
    login_emails = {login.email: login.role for login in plan.logins}

    users = []
    for spec in plan.companies:
        role = login_emails.get(spec.owner.email)
        users.append(
            User(
                email=spec.owner.email,
                full_name=spec.owner.full_name,
                preferred_language=spec.owner.preferred_language,
                email_verified_at=now,
                password=make_password(demo_password(role) if role else None),
            )
        )
    operator = next(login for login in plan.logins if login.role == "operator")
    users.append(
        User(
            email=operator.email,
            full_name=operator.full_name,
            preferred_language="en",
            email_verified_at=now,
            is_staff=True,
            is_superuser=True,
            password=make_password(demo_password("operator")),
        )
    )
    for user in users:
        user.clean_fields()
    User.objects.bulk_create(users, batch_size=BATCH_SIZE)
    owners = {user.email: user for user in User.objects.filter(email__in=[u.email for u in users])}

    company_rows = []
    for spec in plan.companies:
        company = Company(
            slug=spec.slug,
            legal_name=spec.legal_name,
            english_name=spec.english_name,
            original_language=spec.original_language,
            business_types=spec.business_types,
            country=spec.country,
            province=spec.province,
            city=spec.city,
            year_established=spec.year_established,
            employee_range=spec.employee_range,
            main_markets=spec.main_markets,
            main_products=spec.main_products,
            certifications=spec.certifications,
            export_share=spec.export_share,
            website=spec.website,
            description=sanitize_html(spec.description),
            is_verified=spec.is_verified,
            is_featured=spec.is_featured,
        )
        company.clean_fields(exclude=["logo"])
        company_rows.append(company)
    Company.objects.bulk_create(company_rows, batch_size=BATCH_SIZE)
    by_slug = {c.slug: c for c in Company.objects.filter(slug__in=[c.slug for c in company_rows])}
    companies = [by_slug[spec.slug] for spec in plan.companies]
    Membership.objects.bulk_create(
        [
            Membership(user=owners[spec.owner.email], company=company, role=Role.OWNER)
            for spec, company in zip(plan.companies, companies, strict=True)
        ],
        batch_size=BATCH_SIZE,
    )

    product_rows = []
    for item in plan.products:
        product = Product(
            company=companies[item.company_index],
            slug=item.slug,
            original_language=item.original_language,
            title=item.title,
            description=sanitize_html(item.description),
            category_id=item.category_id,
            keywords=item.keywords,
            attributes=item.attributes,
            moq=item.moq,
            moq_unit=item.moq_unit,
            price_min=item.price_min,
            price_max=item.price_max,
            currency=item.currency,
            incoterms=item.incoterms,
            port_of_loading=item.port_of_loading,
            payment_terms=item.payment_terms,
            lead_time_days=item.lead_time_days,
            supply_capacity=item.supply_capacity,
            supply_capacity_unit=item.supply_capacity_unit,
            hs_code=item.hs_code,
            origin_country=item.origin_country,
            status=ProductStatus.PUBLISHED,
            published_at=now - timedelta(minutes=item.published_minutes_ago),
        )
        product.clean_fields(exclude=["company", "category"])
        product_rows.append(product)
    Product.objects.bulk_create(product_rows, batch_size=BATCH_SIZE)
    if any(product.pk is None for product in product_rows):  # pragma: no cover
        raise RuntimeError("the database did not return the new products' ids")
    # The database was empty: every product is the demo's. Listings look as old as they are.
    Product.objects.update(created_at=F("published_at"), updated_at=F("published_at"))

    translations, images = [], []
    for item, product in zip(plan.products, product_rows, strict=True):
        for translation in item.translations:
            row = ProductTranslation(
                product=product,
                language=translation.language,
                title=translation.title[:200],
                description=sanitize_html(translation.description),
            )
            row.clean_fields(exclude=["product"])
            translations.append(row)
        for position, key in enumerate(item.pictures):
            picture = pictures[key]
            images.append(
                ProductImage(
                    product=product,
                    image=picture.image,
                    thumbnail=picture.thumbnail,
                    width=picture.width,
                    height=picture.height,
                    position=position,
                )
            )
    ProductTranslation.objects.bulk_create(translations, batch_size=BATCH_SIZE)
    ProductImage.objects.bulk_create(images, batch_size=BATCH_SIZE)

    # The search index learns about the new listings and suppliers through its outbox.
    record_changes(kind=OutboxKind.COMPANY, object_ids=[company.pk for company in companies])
    record_changes(kind=OutboxKind.PRODUCT, object_ids=[product.pk for product in product_rows])
