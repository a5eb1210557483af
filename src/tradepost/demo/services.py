"""Writes of the demo marketplace: `demo_load` creates it, in one transaction, into an empty
database. The three demo logins get passwords derived from the site's SECRET_KEY, so they can be
shown again later (`demo_logins`) without being stored anywhere in clear.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from tradepost.accounts.models import User
from tradepost.alerts.models import AlertKind, Frequency, SavedSearch
from tradepost.catalog.duplicate_listings import fingerprints_store_published
from tradepost.catalog.machine_texts import translate_in_background
from tradepost.catalog.models import (
    Category,
    Product,
    ProductImage,
    ProductStatus,
    ProductTranslation,
)
from tradepost.catalog.showcase_services import showcase_add
from tradepost.companies.models import Company, Membership, Role
from tradepost.core.database import refresh_planner_statistics
from tradepost.core.html import sanitize_html
from tradepost.demo.counters import plan_counters
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
from tradepost.demo.memberships import SILVER, past_periods, plan_memberships
from tradepost.demo.reviews import AwardFacts, plan_reviews
from tradepost.demo.selectors import database_has_data, demo_users, leaf_categories
from tradepost.demo.sourcing import (
    AWARDED,
    DEMO_BUYER,
    DEMO_SUPPLIER,
    EXPIRED,
    RequestPlan,
    plan_sourcing,
)
from tradepost.demo.vocabulary import load_vocabulary
from tradepost.insights.services import counters_add
from tradepost.membership import services as membership
from tradepost.membership.models import Plan
from tradepost.membership.selectors import benefit_of_companies, grace_days
from tradepost.messaging.machine_texts import translate_messages_in_background
from tradepost.messaging.models import Conversation, ConversationRead, Message
from tradepost.messaging.services import body_fingerprint
from tradepost.notify.models import Notification, NotificationKind
from tradepost.reviews.models import Review
from tradepost.reviews.services import PastReview, reviews_record_history
from tradepost.search.outbox import OutboxKind, record_changes
from tradepost.search.sketches import sketch_of
from tradepost.sourcing.machine_texts import translate_open_requests_in_background
from tradepost.sourcing.models import (
    BuyingRequest,
    Quotation,
    QuotationStatus,
    QuoteUsage,
    RequestConversation,
    RequestStatus,
)

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
    requests: int = 0
    quotations: int = 0
    conversations: int = 0
    membership_periods: int = 0
    reviews: int = 0


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
    requests = plan_sourcing(
        seed=seed, vocab=load_vocabulary(), companies=plan.companies, products=plan.products
    )
    say(_("Drawing %(count)d product pictures…") % {"count": len(plan.pictures)})
    # Files are written before the transaction, so the database is locked only briefly;
    # they are named after their content and reused by a later run.
    pictures = _store_pictures(plan)
    say(_("Writing companies and products…"))
    with transaction.atomic():
        if database_has_data():
            raise _not_empty()
        periods = _write(plan, pictures, requests)
    refresh_planner_statistics()
    translate_in_background()
    translate_open_requests_in_background()
    translate_messages_in_background()
    return DemoResult(
        companies=len(plan.companies),
        countries=len({company.country for company in plan.companies}),
        products=len(plan.products),
        translations=sum(len(product.translations) for product in plan.products),
        pictures=len(pictures),
        seconds=time.perf_counter() - started,
        logins=demo_logins(),
        requests=len(requests),
        quotations=sum(len(r.quotations) for r in requests),
        conversations=sum(len(r.conversations) for r in requests),
        membership_periods=periods,
        reviews=Review.objects.count(),
    )


def _write(plan: DemoPlan, pictures: dict[str, StoredPicture], requests: list[RequestPlan]) -> int:
    """Everything of the plan; answers the number of membership periods written."""
    now = timezone.now()
    owners = _write_users(plan, now=now)
    companies = _write_companies(plan, owners=owners)
    product_rows = _write_products(plan, companies=companies, now=now)
    _write_translations_and_images(plan, product_rows=product_rows, pictures=pictures)

    # The search index learns about the new listings and suppliers through its outbox.
    record_changes(kind=OutboxKind.COMPANY, object_ids=[company.pk for company in companies])
    record_changes(kind=OutboxKind.PRODUCT, object_ids=[product.pk for product in product_rows])
    # Duplicate detection compares new listings with these (ADR 0024).
    fingerprints_store_published(product_rows)

    people = [owners[spec.owner.email] for spec in plan.companies]
    _write_sourcing(requests, companies=companies, people=people, now=now)
    _write_counters(plan, companies=companies, product_rows=product_rows, now=now)
    operator = next(login for login in plan.logins if login.role == "operator")
    _write_reviews(plan, demo_buyer=companies[DEMO_BUYER], operator=owners[operator.email], now=now)
    periods = _write_memberships(plan, companies=companies, operator=owners[operator.email])
    _write_showcases(companies=companies, people=people, product_rows=product_rows)
    _write_alerts(plan, company=companies[DEMO_BUYER], user=people[DEMO_BUYER], now=now)
    return periods


#: The demo buyer's trade alerts were saved this long ago, so listings published since
#: reach them once the worker has indexed and percolated the demo (ADR 0037).
ALERTS_SAVED_DAYS_AGO = 7


def _write_alerts(plan: DemoPlan, *, company: Company, user: User, now: datetime) -> None:
    """A few trade alerts of the demo buyer: the English names of the categories with the
    most listings published since the alerts were saved (one with a country filter), so a
    newcomer finds matches on the alerts page after the first minute of `make run`."""
    since = ALERTS_SAVED_DAYS_AGO * 24 * 60
    recent = Counter(
        item.category_id for item in plan.products if item.published_minutes_ago < since
    )
    names = dict(Category.objects.filter(pk__in=list(recent)).values_list("pk", "name_en"))
    chosen = [pk for pk, _count in recent.most_common() if names.get(pk)][:3]
    alerts = [
        SavedSearch(
            company=company,
            user=user,
            kind=AlertKind.PRODUCT,
            query=names[pk].lower(),
            params={"country": ["CN"]} if position == 2 else {},
            language="en",
            frequency=Frequency.DAILY,
            keys=sketch_of(names[pk].lower()),
        )
        for position, pk in enumerate(chosen)
    ]
    SavedSearch.objects.bulk_create(alerts)
    SavedSearch.objects.filter(company=company).update(
        created_at=now - timedelta(days=ALERTS_SAVED_DAYS_AGO)
    )


def _write_reviews(plan: DemoPlan, *, demo_buyer: Company, operator: User, now: datetime) -> None:
    """The buyers' reviews of the suppliers they awarded (`demo.reviews`), written through the
    reviews app's service for a recorded past (the suppliers' totals with them)."""
    awarded = list(
        Quotation.objects.filter(status=QuotationStatus.AWARDED, request__closed_at__isnull=False)
        .select_related("request__buyer", "supplier")
        .order_by("pk")
    )
    facts = [
        AwardFacts(
            quotation_id=quotation.pk,
            closed_at=quotation.request.closed_at,
            buyer_language=quotation.request.original_language,
            supplier_language=quotation.supplier.original_language,
            demo_buyer=quotation.request.buyer_id == demo_buyer.pk,
        )
        for quotation in awarded
        if quotation.request.closed_at is not None
    ]
    by_id = {quotation.pk: quotation for quotation in awarded}
    reviews_record_history(
        actor=operator,
        reviews=[
            PastReview(
                quotation=by_id[review.quotation_id],
                rating=review.rating,
                text=review.text,
                written_at=review.written_at,
                reply=review.reply,
                replied_at=review.replied_at,
            )
            for review in plan_reviews(seed=plan.seed, awards=facts, now=now)
        ],
    )


def _silver_plan(operator: User) -> Plan:
    """The demo's second paid plan (`demo.memberships.SILVER`), through the operator's own
    service."""
    silver = Plan.objects.filter(code="silver").first()
    if silver is not None:
        return silver
    silver = Plan(**SILVER)
    return membership.plan_save_by_operator(actor=operator, plan=silver)


def _write_memberships(plan: DemoPlan, *, companies: list[Company], operator: User) -> int:
    """Three years of paid periods for a share of the companies (`demo.memberships`), written
    through the membership app's service: invoices numbered per year, statuses as the timer
    leaves them. Answers how many periods were written."""
    gold = Plan.objects.filter(code="gold", is_default=False).first()
    if gold is None:  # the operator removed the installed plan: no history
        return 0
    plans = {"gold": gold, "silver": _silver_plan(operator)}
    history = plan_memberships(
        seed=plan.seed,
        companies=len(companies),
        today=timezone.localdate(),
        grace_days=grace_days(),
        skip=frozenset({DEMO_BUYER, DEMO_SUPPLIER}),
    )
    membership.subscriptions_record_history(
        actor=operator, periods=past_periods(history, companies=companies, plans=plans)
    )
    return len(history)


def _write_showcases(
    *, companies: list[Company], people: list[User], product_rows: list[Product]
) -> None:
    """Each company whose plan today gives showcase slots fills them with its first
    published listings, chosen by its owner through the catalogue's own service (so that the
    home, search and category pages show the labelled, paid block)."""
    slots = benefit_of_companies([company.pk for company in companies], "showcase_slots")
    owner_of = {company.pk: person for company, person in zip(companies, people, strict=True)}
    chosen: dict[int, list[int]] = {}
    for product in product_rows:
        room = int(slots.get(product.company_id) or 0)
        picked = chosen.setdefault(product.company_id, [])
        if product.status == ProductStatus.PUBLISHED and len(picked) < room:
            picked.append(product.pk)
    for company_id, product_ids in chosen.items():
        for product_id in product_ids:
            showcase_add(actor=owner_of[company_id], product_id=product_id)


def _write_counters(
    plan: DemoPlan, *, companies: list[Company], product_rows: list[Product], now: datetime
) -> None:
    """The supplier desk's weeks of product views and search words (`demo.counters`),
    written through the insights app's own service."""
    counters = plan_counters(seed=plan.seed, products=plan.products, today=timezone.localdate(now))
    counters_add(
        views=[
            (product_rows[index].pk, product_rows[index].company_id, day, count)
            for index, day, count in counters.views
        ],
        words=[
            (companies[index].pk, word, day, count) for index, word, day, count in counters.words
        ],
    )


def _write_users(plan: DemoPlan, *, now: datetime) -> dict[str, User]:
    """The owner of every company (the demo logins with their derived passwords) and the
    operator, by email address."""
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
    return owners


def _write_companies(plan: DemoPlan, *, owners: dict[str, User]) -> list[Company]:
    """The companies, in the plan's order, each with its owner as a member."""
    company_rows = [
        spec.company_row(description=sanitize_html(spec.description)) for spec in plan.companies
    ]
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
    return companies


def _write_products(plan: DemoPlan, *, companies: list[Company], now: datetime) -> list[Product]:
    """The published listings, in the plan's order, dated as old as the plan says."""
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
    return product_rows


def _write_translations_and_images(
    plan: DemoPlan, *, product_rows: list[Product], pictures: dict[str, StoredPicture]
) -> None:
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


def _write_sourcing(
    requests: list[RequestPlan], *, companies: list[Company], people: list[User], now: datetime
) -> None:
    """Buying requests with their quotations, conversations about some of them, each
    company's quotation usage this month, and the demo logins' notifications."""
    request_rows, times = _write_requests(requests, companies=companies, people=people, now=now)
    quotation_rows, quoted_at = _write_quotations(
        requests,
        request_rows=request_rows,
        times=times,
        companies=companies,
        people=people,
        now=now,
    )
    _date_and_award(
        requests,
        request_rows=request_rows,
        times=times,
        quotation_rows=quotation_rows,
        quoted_at=quoted_at,
    )
    _write_quote_usage(quotation_rows, quoted_at=quoted_at)
    _write_conversations(requests, request_rows, quotation_rows, quoted_at, people, now)
    _write_notifications(requests, request_rows, quotation_rows, quoted_at, people, now)


def _write_requests(
    requests: list[RequestPlan], *, companies: list[Company], people: list[User], now: datetime
) -> tuple[list[BuyingRequest], list[tuple[datetime, datetime | None]]]:
    """The buying requests, and when each was posted and closed (None while open)."""
    minute = timedelta(minutes=1)
    request_rows: list[BuyingRequest] = []
    times: list[tuple[datetime, datetime | None]] = []
    for item in requests:
        posted = now - item.posted_minutes_ago * minute
        deadline = now + item.deadline_in_minutes * minute
        closed = None
        if item.state == EXPIRED:
            closed = deadline
        elif item.state == AWARDED:
            last_quote = max(q.minutes_after_posting for q in item.quotations)
            closed = min(now - minute, posted + (last_quote + 24 * 60) * minute)
        row = BuyingRequest(
            buyer=companies[item.buyer_index],
            created_by=people[item.buyer_index],
            title=item.title,
            description=sanitize_html(item.description),
            original_language=item.original_language,
            category_id=item.category_id,
            quantity=item.quantity,
            unit=item.unit,
            target_unit_price=item.target_unit_price,
            target_currency=item.target_currency,
            destination_country=item.destination_country,
            destination_port=item.destination_port,
            preferred_incoterm=item.preferred_incoterm,
            required_certifications=item.required_certifications,
            deadline=deadline,
            sealed=item.sealed,
            reveal_identity=item.reveal_identity,
            status=RequestStatus(item.state),
            quotation_count=len(item.quotations),
            closed_at=closed,
        )
        row.clean_fields(exclude=["buyer", "category", "created_by", "awarded_quotation"])
        request_rows.append(row)
        times.append((posted, closed))
    BuyingRequest.objects.bulk_create(request_rows, batch_size=BATCH_SIZE)
    return request_rows, times


def _write_quotations(
    requests: list[RequestPlan],
    *,
    request_rows: list[BuyingRequest],
    times: list[tuple[datetime, datetime | None]],
    companies: list[Company],
    people: list[User],
    now: datetime,
) -> tuple[list[Quotation], list[datetime]]:
    """The quotations of every request, in the plan's order, and when each was sent."""
    minute = timedelta(minutes=1)
    quotation_rows: list[Quotation] = []
    quoted_at: list[datetime] = []
    for item, row, (posted, _closed) in zip(requests, request_rows, times, strict=True):
        for quote in item.quotations:
            at = min(now - minute, posted + quote.minutes_after_posting * minute)
            quotation = Quotation(
                request=row,
                supplier=companies[quote.supplier_index],
                created_by=people[quote.supplier_index],
                unit_price=quote.unit_price,
                currency=quote.currency,
                moq=quote.moq,
                lead_time_days=quote.lead_time_days,
                incoterm=quote.incoterm,
                named_place=quote.named_place,
                payment_terms=quote.payment_terms,
                valid_until=(at + timedelta(days=quote.valid_days)).date(),
                sample_available=quote.sample_available,
                sample_cost=quote.sample_cost,
                message=quote.message,
                status=QuotationStatus(quote.status),
                decline_reason=quote.decline_reason,
            )
            quotation.clean_fields(exclude=["request", "supplier", "created_by"])
            quotation_rows.append(quotation)
            quoted_at.append(at)
    Quotation.objects.bulk_create(quotation_rows, batch_size=BATCH_SIZE)
    return quotation_rows, quoted_at


def _date_and_award(
    requests: list[RequestPlan],
    *,
    request_rows: list[BuyingRequest],
    times: list[tuple[datetime, datetime | None]],
    quotation_rows: list[Quotation],
    quoted_at: list[datetime],
) -> None:
    """Date the rows as the plan says and link each awarded request to its quotation."""
    # Rows look as old as the plan says (created_at is set on insert).
    for row, (posted, closed) in zip(request_rows, times, strict=True):
        BuyingRequest.objects.filter(pk=row.pk).update(
            created_at=posted, updated_at=closed or posted
        )
    for quotation, at in zip(quotation_rows, quoted_at, strict=True):
        Quotation.objects.filter(pk=quotation.pk).update(created_at=at, updated_at=at)
    position = 0
    for item, row in zip(requests, request_rows, strict=True):
        if item.awarded_position is not None:
            awarded = quotation_rows[position + item.awarded_position]
            BuyingRequest.objects.filter(pk=row.pk).update(awarded_quotation=awarded)
        position += len(item.quotations)


def _write_quote_usage(quotation_rows: list[Quotation], *, quoted_at: list[datetime]) -> None:
    """Each company's quotations of this month, counted against its quota."""
    month_start = timezone.localdate().replace(day=1)
    usage: dict[int, int] = {}
    for quotation, at in zip(quotation_rows, quoted_at, strict=True):
        if timezone.localdate(at) >= month_start:
            usage[quotation.supplier_id] = usage.get(quotation.supplier_id, 0) + 1
    QuoteUsage.objects.bulk_create(
        [QuoteUsage(company_id=c, month=month_start, count=n) for c, n in sorted(usage.items())]
    )


def _link_to_requests(conversations: list[Conversation], requests: list[BuyingRequest]) -> None:
    """Each conversation is about the request of the same position."""
    RequestConversation.objects.bulk_create(
        [
            RequestConversation(conversation=conversation, request=request)
            for conversation, request in zip(conversations, requests, strict=True)
        ],
        batch_size=BATCH_SIZE,
    )


def _write_conversations(
    requests: list[RequestPlan],
    request_rows: list[BuyingRequest],
    quotation_rows: list[Quotation],
    quoted_at: list[datetime],
    people: list[User],
    now: datetime,
) -> None:
    position = 0
    threads: list[tuple[Conversation, list[Message]]] = []
    about: list[BuyingRequest] = []  # the request each thread is about
    for item, row in zip(requests, request_rows, strict=True):
        for talk in item.conversations:
            quotation = quotation_rows[position + talk.quotation_position]
            supplier_index = item.quotations[talk.quotation_position].supplier_index
            start = quoted_at[position + talk.quotation_position]
            messages: list[Message] = []
            previous = start
            for number, planned in enumerate(talk.messages):
                at = start + timedelta(minutes=planned.minutes_after_start)
                # never in the future, always after the previous message
                at = max(previous + timedelta(seconds=1), min(at, now - timedelta(minutes=5)))
                at = min(at, now - timedelta(seconds=len(talk.messages) - number))
                previous = at
                sender = item.buyer_index if planned.from_buyer else supplier_index
                messages.append(
                    Message(
                        sender_user=people[sender],
                        sender_company_id=(
                            row.buyer_id if planned.from_buyer else quotation.supplier_id
                        ),
                        body=planned.body,
                        body_hash=body_fingerprint(planned.body),
                        created_at=at,
                    )
                )
            replies = [
                m.created_at
                for m, p in zip(messages, talk.messages, strict=True)
                if not p.from_buyer
            ]
            conversation = Conversation(
                buyer_company_id=row.buyer_id,
                buyer_user=people[item.buyer_index],
                supplier_company_id=quotation.supplier_id,
                subject=row.title,
                quantity=row.quantity,
                unit=row.unit,
                created_at=messages[0].created_at,
                last_message_at=messages[-1].created_at,
                supplier_first_reply_at=replies[0] if replies else None,
            )
            conversation.clean_fields(exclude=["buyer_company", "supplier_company", "buyer_user"])
            threads.append((conversation, messages))
            about.append(row)
        position += len(item.quotations)
    Conversation.objects.bulk_create([conversation for conversation, _m in threads])
    _link_to_requests([conversation for conversation, _m in threads], about)
    all_messages = []
    for conversation, messages in threads:
        for message in messages:
            message.conversation = conversation
            message.clean_fields(exclude=["conversation", "sender_user", "sender_company"])
            all_messages.append(message)
    Message.objects.bulk_create(all_messages, batch_size=BATCH_SIZE)
    # Each company has read up to its own last message: the other side's answer is unread.
    marks = []
    for conversation, messages in threads:
        for company_id in (conversation.buyer_company_id, conversation.supplier_company_id):
            own = [m for m in messages if m.sender_company_id == company_id]
            if own:
                marks.append(
                    ConversationRead(
                        conversation=conversation,
                        company_id=company_id,
                        last_read_message_id=own[-1].pk,
                        read_at=own[-1].created_at,
                    )
                )
    ConversationRead.objects.bulk_create(marks, batch_size=BATCH_SIZE)


def _write_notifications(
    requests: list[RequestPlan],
    request_rows: list[BuyingRequest],
    quotation_rows: list[Quotation],
    quoted_at: list[datetime],
    people: list[User],
    now: datetime,
) -> None:
    """What the demo buyer and the demo supplier were told about their requests and quotes
    (older notices read, the last day's unread)."""
    buyer, supplier = people[DEMO_BUYER], people[DEMO_SUPPLIER]
    notifications = []
    position = 0
    for item, row in zip(requests, request_rows, strict=True):
        compare = f"/en/requests/{row.pk}/compare/"
        detail = f"/en/requests/{row.pk}/"
        for offset, quote in enumerate(item.quotations):
            at = quoted_at[position + offset]
            read = at if at < now - timedelta(days=1) else None
            if item.buyer_index == DEMO_BUYER:
                notifications.append(
                    Notification(
                        recipient=buyer,
                        kind=NotificationKind.NEW_QUOTATION,
                        params={
                            "company": quotation_rows[position + offset].supplier.legal_name,
                            "subject": row.title,
                        },
                        link=compare,
                        created_at=at,
                        read_at=read,
                    )
                )
            if quote.supplier_index == DEMO_SUPPLIER and item.state == AWARDED and row.closed_at:
                won = item.awarded_position == offset
                notifications.append(
                    Notification(
                        recipient=supplier,
                        kind=(
                            NotificationKind.QUOTATION_AWARDED
                            if won
                            else NotificationKind.QUOTATION_NOT_SELECTED
                        ),
                        params={"subject": row.title},
                        link=detail,
                        created_at=row.closed_at,
                        read_at=None,
                    )
                )
        position += len(item.quotations)
    Notification.objects.bulk_create(notifications, batch_size=BATCH_SIZE)
