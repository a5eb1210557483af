"""Writes of membership: one function per use case, keyword-only arguments, one transaction.

- A company's owner or admin subscribes, changes plan (an upgrade from today with the credit
  of its unused days, a downgrade from the end of what is paid: `selectors.change_quote`) or
  cancels at the term's end (`plan_change`, `subscription_cancel`); each change is a new
  `Subscription` row waiting for its payment, with its `Invoice`.
- An operator confirms the bank transfer (`invoice_confirm_payment`): the period is paid, an
  upgrade replaces what it credited, the company is told.
- The worker's timer (`membership_jobs_run`, ops.periodic) issues renewal invoices 30 days
  ahead, sends the 30-, 7- and 1-day reminders once each, and at the end of the grace period
  returns a company that did not pay to the free plan. Nothing it listed changes.

Invoice numbers are taken from a locked counter row per year in the invoice's transaction:
no gap, no repeat (`_next_number`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any, Literal, TypedDict, Unpack

from babel.dates import format_date
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tradepost.accounts.selectors import require_operator
from tradepost.audit.services import audit_record, field_changes, snapshot
from tradepost.companies.actors import actor_for
from tradepost.companies.models import Company, Membership, Role
from tradepost.companies.selectors import company_managers
from tradepost.core.cleaning import FieldErrors, FieldInvalid, clean_country, clean_text
from tradepost.core.languages import babel_date_locale, normalise_ui_language
from tradepost.membership import selectors
from tradepost.membership.errors import MembershipError, MembershipErrorCode
from tradepost.membership.models import (
    BillingDetails,
    Invoice,
    InvoiceCounter,
    InvoiceStatus,
    Plan,
    RenewalReminder,
    Subscription,
    SubscriptionKind,
    SubscriptionStatus,
)
from tradepost.membership.payments import DEFAULT_PROVIDER, provider
from tradepost.membership.proration import add_months, credit_for
from tradepost.notify.models import NotificationKind
from tradepost.notify.services import link_in, notification_create, queue_email
from tradepost.search.outbox import OutboxKind, record_change, record_changes

#: Days before a period's end when its managers are reminded, each once.
REMINDER_DAYS = (30, 7, 1)
#: A renewal invoice is issued this many days before the period ends.
RENEWAL_NOTICE_DAYS = 30
#: Periods looked at per run of each job (the rest wait for the next run).
JOB_BATCH = 200

Action = Literal["subscribe", "upgrade", "downgrade"]
ACTIONS: dict[str, str] = {
    "subscribe": SubscriptionKind.NEW,
    "upgrade": SubscriptionKind.UPGRADE,
    "downgrade": SubscriptionKind.DOWNGRADE,
}


# --- who may ---------------------------------------------------------------------------------


def _require_manager(actor: Any, company: Company) -> None:
    if not actor_for(actor).manages(company):
        raise MembershipError(
            MembershipErrorCode.NOT_ALLOWED,
            _("Only the company's owner and admins can change its membership."),
        )


# --- billing details -------------------------------------------------------------------------


class BillingFields(TypedDict, total=False):
    """What a company wants on its invoices: the input of `billing_details_set` (the web form
    and the API body send these names)."""

    legal_name: str
    address: str
    country: str
    tax_id: str
    email: str


BILLING_FIELDS = frozenset(BillingFields.__annotations__)


def _clean_email(value: Any) -> str:
    text = clean_text(value, max_length=254)
    if text:
        try:
            validate_email(text)
        except ValidationError:
            raise FieldInvalid(_("Enter a valid email address.")) from None
    return text


_BILLING_CLEANERS: dict[str, tuple[Any, dict[str, Any]]] = {
    "legal_name": (clean_text, {"max_length": 200, "required": True, "markup_free": True}),
    "address": (clean_text, {"max_length": 500, "single_line": False, "markup_free": True}),
    "country": (clean_country, {"required": True}),
    "tax_id": (clean_text, {"max_length": 50, "markup_free": True}),
    "email": (_clean_email, {}),
}


@transaction.atomic
def billing_details_set(
    *, actor: Any, company: Company, **fields: Unpack[BillingFields]
) -> BillingDetails:
    """Set the name, address, country, tax number and billing email the company's next
    invoices carry (issued ones keep theirs)."""
    _require_manager(actor, company)
    errors = FieldErrors()
    for name in sorted(set(fields) - BILLING_FIELDS):
        errors.add(name, _("This field is not known here."))
    cleaned = {
        name: errors.clean(name, cleaner, fields.get(name), **options)
        for name, (cleaner, options) in _BILLING_CLEANERS.items()
    }
    errors.raise_if_any(MembershipError, MembershipErrorCode.INVALID)
    details = BillingDetails.objects.select_for_update().filter(company_id=company.pk).first()
    details = details or BillingDetails(company=company)
    for name, value in cleaned.items():
        setattr(details, name, value or "")
    details.full_clean()
    details.save()
    return details


# --- invoices --------------------------------------------------------------------------------


def _next_number(year: int) -> int:
    """The year's next invoice number, taken under the counter row's lock: a concurrent
    invoice waits for this transaction, so numbers never repeat; a rolled-back invoice
    gives its number back, so none is skipped."""
    return _take_numbers(year, 1)


def _take_numbers(year: int, count: int) -> int:
    """Take the year's next `count` invoice numbers under the counter row's lock; answers the
    first of them."""
    try:
        with transaction.atomic():
            InvoiceCounter.objects.get_or_create(year=year)
    except IntegrityError:
        pass  # created by a concurrent invoice; locked below
    counter = InvoiceCounter.objects.select_for_update().get(year=year)
    counter.last += count
    counter.save(update_fields=["last"])
    return counter.last - count + 1


def invoice_number(year: int, sequence: int) -> str:
    return f"{settings.TRADEPOST_INVOICE_PREFIX}-{year}-{sequence:06d}"


def seller_details() -> dict[str, str]:
    """The operator's company as invoices name it (settings TRADEPOST_SELLER_*)."""
    return {
        "name": settings.TRADEPOST_SELLER_NAME,
        "address": settings.TRADEPOST_SELLER_ADDRESS.replace("\\n", "\n"),
        "country": settings.TRADEPOST_SELLER_COUNTRY,
        "tax_id": settings.TRADEPOST_SELLER_TAX_ID,
        "email": settings.TRADEPOST_SELLER_EMAIL,
    }


def _buyer_details(company: Company) -> dict[str, str]:
    details = selectors.billing_details(company)
    address = details.address or ", ".join(
        part for part in (company.city, company.province) if part
    )
    return {
        "name": details.legal_name or company.legal_name,
        "address": address,
        "country": details.country or company.country,
        "tax_id": details.tax_id,
        "email": details.email,
    }


def _invoice_for(
    subscription: Subscription,
    *,
    price: Decimal,
    credit: Decimal,
    issued_on: date,
    sequence: int,
    buyer: dict[str, str],
    created_at: datetime,
) -> Invoice:
    """The (unsaved) invoice of `subscription`, in its plan's currency, numbered `sequence`
    of the year it is issued in."""
    number = invoice_number(issued_on.year, sequence)
    payment = provider(DEFAULT_PROVIDER)
    return Invoice(
        number=number,
        year=issued_on.year,
        sequence=sequence,
        company=subscription.company,
        subscription=subscription,
        issued_on=issued_on,
        due_on=issued_on + timedelta(int(settings.TRADEPOST_INVOICE_DUE_DAYS)),
        period_start=subscription.starts_on,
        period_end=subscription.last_day,
        currency=subscription.plan.currency,
        price=price,
        credit=credit,
        total=max(Decimal(0), price - credit),
        plan_code=subscription.plan.code,
        buyer=buyer,
        seller=seller_details(),
        payment_method=payment.code,
        payment_reference=payment.reference(number_body=number.replace("-", "")),
        created_at=created_at,
    )


def _issue_invoice(subscription: Subscription, *, price: Decimal, credit: Decimal) -> Invoice:
    """Number and write the invoice of `subscription` (in its plan's currency)."""
    today = timezone.localdate()
    invoice = _invoice_for(
        subscription,
        price=price,
        credit=credit,
        issued_on=today,
        sequence=_next_number(today.year),
        buyer=_buyer_details(subscription.company),
        created_at=timezone.now(),
    )
    invoice.full_clean()
    invoice.save()
    return invoice


def _void_pending(company: Company, *, now: datetime) -> None:
    """Withdraw the change waiting for its payment, if any; its invoice stays, void."""
    for pending in Subscription.objects.select_for_update().filter(
        company_id=company.pk, status=SubscriptionStatus.PENDING
    ):
        pending.status = SubscriptionStatus.CANCELLED
        pending.closed_at = now
        pending.save(update_fields=["status", "closed_at"])
        Invoice.objects.filter(subscription_id=pending.pk, status=InvoiceStatus.OPEN).update(
            status=InvoiceStatus.VOID
        )


# --- the search documents ---------------------------------------------------------------------


def _badge_may_change(company_id: int) -> None:
    """The company's plan or its periods changed, and with them perhaps its Gold Supplier
    badge (`badges`): its search documents are built again, through the outbox, in this
    transaction."""
    record_change(kind=OutboxKind.COMPANY, object_id=company_id)


# --- subscribing, changing, cancelling --------------------------------------------------------


def _lock_company(company: Company) -> Company:
    """Changes of one company's membership run one at a time."""
    return Company.objects.select_for_update().get(pk=company.pk)


@transaction.atomic
def plan_change(*, actor: Any, company: Company, plan_id: Any, action: Action) -> Subscription:
    """Subscribe to a paid plan, upgrade or downgrade to it (`action` says which the actor
    means; a different answer is refused). The new period waits for its payment, with its
    invoice; a change still waiting is withdrawn first. A cancelled period asked for again
    renews once more instead (nothing to pay now)."""
    _require_manager(actor, company)
    if action not in ACTIONS:
        raise MembershipError(
            MembershipErrorCode.INVALID,
            {"action": [_("Choose subscribe, upgrade or downgrade.")]},
        )
    if plan_id is None or plan_id == "":
        raise MembershipError(
            MembershipErrorCode.INVALID, {"plan_id": [_("This field is required.")]}
        )
    plan = selectors.offered_plan(plan_id=plan_id)
    if plan.is_default:
        raise MembershipError(
            MembershipErrorCode.WRONG_ACTION,
            _("To return to the free plan, cancel at the end of the term."),
        )
    company = _lock_company(company)
    current = selectors.current_subscription(company)
    if current is not None and current.plan_id == plan.pk and not current.auto_renew:
        return _resume(actor, current)
    quote = selectors.change_quote(company, plan)
    if ACTIONS[action] != quote.kind:
        raise MembershipError(MembershipErrorCode.WRONG_ACTION, _wrong_action(quote.kind))
    waiting = _same_change_waiting(company, plan=plan, quote=quote)
    if waiting is not None:
        # The same purchase asked again (a second click, a retried request, four at once):
        # one purchase, one invoice number.
        return waiting
    now = timezone.now()
    _void_pending(company, now=now)
    subscription = Subscription(
        company=company,
        plan=plan,
        kind=quote.kind,
        starts_on=quote.starts_on,
        ends_on=quote.ends_on,
        previous=quote.previous,
        created_at=now,
        created_by=actor if getattr(actor, "is_authenticated", False) else None,
    )
    subscription.full_clean(validate_constraints=False)
    subscription.save()
    invoice = _issue_invoice(subscription, price=quote.price, credit=quote.credit)
    _audit_plan(actor, subscription, f"subscription.{quote.kind}", current=current)
    if invoice.total == 0:
        _mark_paid(invoice, actor=None, now=now)
    return subscription


def _audit_plan(
    actor: Any, subscription: Subscription, action: str, *, current: Subscription | None
) -> None:
    """One audit entry for a change of the company's plan or of its renewal: the plan before
    and after, and whether it renews."""
    audit_record(
        actor=actor,
        action=action,
        target=subscription,
        changes={
            "plan": [current.plan.code if current is not None else None, subscription.plan.code],
            "auto_renew": [
                current.auto_renew if current is not None else None,
                subscription.auto_renew,
            ],
        },
    )


def _same_change_waiting(
    company: Company, *, plan: Plan, quote: selectors.ChangeQuote
) -> Subscription | None:
    """The change waiting for its payment when it is this very one (plan, kind and period),
    with its invoice still open; None otherwise."""
    return (
        Subscription.objects.filter(
            company_id=company.pk,
            status=SubscriptionStatus.PENDING,
            plan_id=plan.pk,
            kind=quote.kind,
            starts_on=quote.starts_on,
            ends_on=quote.ends_on,
            invoice__status=InvoiceStatus.OPEN,
        )
        .order_by("-pk")
        .first()
    )


def _wrong_action(kind: str) -> str:
    if kind == SubscriptionKind.UPGRADE:
        return _("This plan costs more than your current one: it is an upgrade.")
    if kind == SubscriptionKind.DOWNGRADE:
        return _("This plan costs less than your current one: it is a downgrade.")
    return _("Your company has no paid plan yet: subscribe to this one.")


def _set_auto_renew(actor: Any, subscription: Subscription, value: bool, action: str) -> None:
    """Turn the subscription's renewal on or off, audited as `subscription.<action>`."""
    subscription.auto_renew = value
    subscription.save(update_fields=["auto_renew"])
    audit_record(
        actor=actor,
        action=f"subscription.{action}",
        target=subscription,
        changes={"auto_renew": [not value, value]},
    )


def _resume(actor: Any, current: Subscription) -> Subscription:
    _set_auto_renew(actor, current, True, "resume")
    _badge_may_change(current.company_id)
    return current


@transaction.atomic
def subscription_cancel(*, actor: Any, company: Company) -> Subscription:
    """Stop renewing: the paid period runs to its end, then the company is on the free plan
    (no grace period). A change waiting for its payment is withdrawn."""
    _require_manager(actor, company)
    company = _lock_company(company)
    current = selectors.current_subscription(company)
    if current is None or not current.auto_renew:
        raise MembershipError(
            MembershipErrorCode.NOTHING_TO_CANCEL, _("There is no renewing membership to cancel.")
        )
    _void_pending(company, now=timezone.now())
    _set_auto_renew(actor, current, False, "cancel")
    following = selectors.scheduled_next(current)
    if following is not None:  # paid ahead: it runs, and ends without renewing too
        following.auto_renew = False
        following.save(update_fields=["auto_renew"])
    _badge_may_change(company.pk)
    return current


# --- payment ---------------------------------------------------------------------------------


def _mark_paid(invoice: Invoice, *, actor: Any, now: datetime) -> None:
    """The invoice is paid: its period is paid, and an upgrade replaces what it credited."""
    invoice.status = InvoiceStatus.PAID
    invoice.paid_at = now
    invoice.confirmed_by = actor if getattr(actor, "is_authenticated", False) else None
    invoice.save(update_fields=["status", "paid_at", "confirmed_by"])
    subscription = Subscription.objects.select_for_update().get(pk=invoice.subscription_id)
    subscription.status = SubscriptionStatus.ACTIVE
    subscription.activated_at = now
    subscription.save(update_fields=["status", "activated_at"])
    if subscription.kind == SubscriptionKind.UPGRADE and subscription.previous_id:
        replaced = Subscription.objects.filter(
            company_id=subscription.company_id, status=SubscriptionStatus.ACTIVE
        ).exclude(pk=subscription.pk)
        replaced.update(status=SubscriptionStatus.REPLACED, closed_at=now)
    _badge_may_change(subscription.company_id)
    _tell_managers(
        subscription,
        kind=NotificationKind.MEMBERSHIP_PAID,
        template="membership_paid",
        subject=gettext_lazy("Payment received: your membership is active"),
        day=subscription.last_day,
    )


@transaction.atomic
def invoice_confirm_payment(*, actor: Any, invoice_id: Any) -> Invoice:
    """An operator confirms that the transfer of an open invoice arrived."""
    require_operator(actor)
    invoice = selectors.access_invoice(user=actor, invoice_id=invoice_id)
    invoice = Invoice.objects.select_for_update().get(pk=invoice.pk)
    if invoice.status != InvoiceStatus.OPEN:
        raise MembershipError(
            MembershipErrorCode.INVOICE_NOT_OPEN, _("This invoice is not awaiting payment.")
        )
    subscription = Subscription.objects.get(pk=invoice.subscription_id)
    if subscription.status != SubscriptionStatus.PENDING:
        raise MembershipError(
            MembershipErrorCode.INVOICE_NOT_OPEN, _("This invoice is not awaiting payment.")
        )
    before = snapshot(invoice, ["status"])
    _mark_paid(invoice, actor=actor, now=timezone.now())
    audit_record(
        actor=actor,
        action="invoice.paid",
        target=invoice,
        changes=field_changes(before, snapshot(invoice, ["status"]), ["status"]),
    )
    return invoice


# --- telling the company ---------------------------------------------------------------------


def _tell_managers(
    subscription: Subscription,
    *,
    kind: str,
    template: str,
    subject: Any,
    day: date,
    context: dict[str, Any] | None = None,
) -> None:
    """A notification and an email to each owner and admin, each in their own language:
    the plan's name and `day` as they read them."""
    with translation.override("en"):
        path = reverse("membership:overview")
    for user in company_managers(subscription.company_id):
        language = normalise_ui_language(user.preferred_language)
        plan = subscription.plan.name_for(language)
        when = format_date(day, "medium", locale=babel_date_locale(language))
        notification_create(
            recipient=user, kind=kind, params={"subject": plan, "date": when}, link=path
        )
        link = link_in(language, "membership:overview")
        queue_email(
            to=user.email,
            subject=subject,
            template=template,
            context={"plan": plan, "date": when, **(context or {}), "link": link},
            language=language,
        )


# --- the worker's timer ----------------------------------------------------------------------


def _renewing_due(today: date) -> list[int]:
    return list(
        Subscription.objects.filter(
            status=SubscriptionStatus.ACTIVE,
            auto_renew=True,
            ends_on__gt=today,
            ends_on__lte=today + timedelta(RENEWAL_NOTICE_DAYS),
        )
        .order_by("ends_on", "pk")
        .values_list("pk", flat=True)[:JOB_BATCH]
    )


def renewals_issue_due(*, today: date | None = None) -> int:
    """Issue the renewal (the next period of the same plan, with its invoice) of each renewing
    period that ends within 30 days and has nothing after it. Returns how many."""
    today = today or timezone.localdate()
    issued = 0
    for pk in _renewing_due(today):
        with transaction.atomic():
            current = Subscription.objects.select_related("plan", "company").get(pk=pk)
            _lock_company(current.company)
            if _renewal_needed(current):
                _issue_renewal(current)
                issued += 1
    return issued


def _renewal_needed(current: Subscription) -> bool:
    """Still renewing, with no change waiting for its payment and nothing paid after it
    (read under the company's lock)."""
    current.refresh_from_db()
    waiting = Subscription.objects.filter(
        company_id=current.company_id, status=SubscriptionStatus.PENDING
    ).exists()
    return (
        current.status == SubscriptionStatus.ACTIVE
        and current.auto_renew
        and not waiting
        and selectors.scheduled_next(current) is None
    )


def _issue_renewal(current: Subscription) -> Subscription:
    renewal = Subscription(
        company=current.company,
        plan=current.plan,
        kind=SubscriptionKind.RENEWAL,
        starts_on=current.ends_on,
        ends_on=add_months(current.ends_on, current.plan.term_months or 12),
        previous=current,
        created_at=timezone.now(),
    )
    renewal.full_clean(validate_constraints=False)
    renewal.save()
    _issue_invoice(renewal, price=current.plan.price, credit=Decimal(0))
    return renewal


def _stage(days_left: int) -> int | None:
    """The reminder due with `days_left` days to go: the nearest of 30, 7 and 1 not passed."""
    due = [days for days in REMINDER_DAYS if days_left <= days]
    return min(due) if due else None


def renewal_reminders_send(*, today: date | None = None) -> int:
    """Remind the owners and admins of each company whose paid period ends in 30, 7 or 1
    days (or fewer, when a run was missed) and that has nothing paid after it; each reminder
    once, claimed by its unique row. Returns how many were sent."""
    today = today or timezone.localdate()
    due = (
        Subscription.objects.filter(
            status=SubscriptionStatus.ACTIVE,
            ends_on__gt=today,
            ends_on__lte=today + timedelta(max(REMINDER_DAYS)),
        )
        .select_related("plan")
        .order_by("ends_on", "pk")[:JOB_BATCH]
    )
    sent = 0
    for subscription in due:
        stage = _stage((subscription.ends_on - today).days)
        if stage is None or selectors.scheduled_next(subscription) is not None:
            continue
        with transaction.atomic():
            try:
                with transaction.atomic():
                    RenewalReminder.objects.create(
                        subscription=subscription, days_before=stage, sent_at=timezone.now()
                    )
            except IntegrityError:
                continue  # sent before, or by another worker
            _remind(subscription, stage=stage)
            sent += 1
    return sent


def _remind(subscription: Subscription, *, stage: int) -> None:
    pending = (
        Invoice.objects.filter(
            company_id=subscription.company_id,
            status=InvoiceStatus.OPEN,
            subscription__status=SubscriptionStatus.PENDING,
        )
        .order_by("-pk")
        .first()
    )
    _tell_managers(
        subscription,
        kind=NotificationKind.MEMBERSHIP_ENDING,
        template="membership_ending",
        subject=gettext_lazy("Your membership ends soon"),
        day=subscription.last_day,
        context={
            "days": stage,
            "renews": subscription.auto_renew,
            "invoice_number": pending.number if pending is not None else "",
            "grace_days": selectors.grace_days(),
        },
    )


def subscriptions_expire_due(*, today: date | None = None) -> int:
    """Close the paid periods that are over: one followed by a paid period ends; one that was
    not renewed in time (its grace period over, or cancelled at its end) expires, its unpaid
    renewal is withdrawn, and the company is on the free plan: its listings stay as they are.
    Returns how many companies went back to the free plan."""
    today = today or timezone.localdate()
    grace = timedelta(selectors.grace_days())
    over = Subscription.objects.filter(status=SubscriptionStatus.ACTIVE, ends_on__lte=today)
    expired = 0
    for pk in over.order_by("ends_on", "pk").values_list("pk", flat=True)[:JOB_BATCH]:
        with transaction.atomic():
            subscription = Subscription.objects.select_for_update().get(pk=pk)
            if subscription.status != SubscriptionStatus.ACTIVE:
                continue
            now = timezone.now()
            if selectors.scheduled_next(subscription) is not None:
                _close(subscription, SubscriptionStatus.ENDED, now=now)
                continue
            if subscription.auto_renew and subscription.ends_on + grace > today:
                continue  # in its grace period
            _close(subscription, SubscriptionStatus.EXPIRED, now=now)
            _void_pending(subscription.company, now=now)
            _tell_managers(
                subscription,
                kind=NotificationKind.MEMBERSHIP_EXPIRED,
                template="membership_expired",
                subject=gettext_lazy("Your membership has ended"),
                day=today,
            )
            expired += 1
    return expired


def _close(subscription: Subscription, status: str, *, now: datetime) -> None:
    subscription.status = status
    subscription.closed_at = now
    subscription.save(update_fields=["status", "closed_at"])
    # The badge's last day is in the documents already; built again all the same, so that
    # nothing of the closed period outlives it in the index.
    _badge_may_change(subscription.company_id)


def membership_jobs_run(*, today: date | None = None) -> dict[str, int]:
    """The timer's round: renewal invoices, reminders, then expiries."""
    return {
        "renewals": renewals_issue_due(today=today),
        "reminders": renewal_reminders_send(today=today),
        "expired": subscriptions_expire_due(today=today),
    }


# --- plans (the operator's) ------------------------------------------------------------------

PLAN_AUDITED = (
    "code",
    "name_en",
    "name_zh_hans",
    "name_zh_hant",
    "price",
    "currency",
    "term_months",
    "monthly_quotation_quota",
    "showcase_slots",
    "early_look_minutes",
    "deeper_statistics",
    "verified_badge_eligible",
    "is_offered",
    "position",
)


@transaction.atomic
def plan_save_by_operator(*, actor: Any, plan: Plan) -> Plan:
    """Save the admin's edit of a plan (its form checked the values), with an audit entry.
    Issued invoices keep their amounts; the next period is billed at the new price."""
    require_operator(actor)
    stored = Plan.objects.select_for_update().filter(pk=plan.pk).first() if plan.pk else None
    before = snapshot(stored, PLAN_AUDITED) if stored is not None else {}
    plan.currency = plan.currency.upper()
    plan.full_clean()
    plan.save()
    if stored is not None and stored.verified_badge_eligible != plan.verified_badge_eligible:
        _plan_badge_changed(plan)
    audit_record(
        actor=actor,
        action="plan.change" if stored is not None else "plan.create",
        target=plan,
        changes=field_changes(before, snapshot(plan, PLAN_AUDITED), PLAN_AUDITED),
    )
    return plan


def _plan_badge_changed(plan: Plan) -> None:
    """The plan gives the Gold Supplier badge now, or no longer: the verified companies on it
    (on the default plan: every verified company) are indexed again."""
    companies = Company.objects.filter(is_verified=True)
    if not plan.is_default:
        companies = companies.filter(
            subscriptions__plan=plan, subscriptions__status=SubscriptionStatus.ACTIVE
        )
    record_changes(
        kind=OutboxKind.COMPANY, object_ids=companies.values_list("pk", flat=True).distinct()
    )


# --- a recorded past (the demo, an import) ----------------------------------------------------


@dataclass(frozen=True)
class PastPeriod:
    """One period of a company's past for `subscriptions_record_history`: the plan chosen, the
    kind of change and its dates, the day its invoice was issued and the day its transfer was
    confirmed (None: never, or not yet; only a renewal may be unpaid). `previous` is the
    position, in the same list, of the period it follows (a renewal, a downgrade) or replaces
    (an upgrade)."""

    company: Company
    plan: Plan
    kind: str
    starts_on: date
    ends_on: date
    issued_on: date
    paid_on: date | None = None
    auto_renew: bool = True
    previous: int | None = None


#: What a recorded period's row copies from its `PastPeriod`.
PAST_FIELDS = ("company", "plan", "kind", "starts_on", "ends_on", "auto_renew")


def _history_refusal(position: int) -> MembershipError:
    return MembershipError(
        MembershipErrorCode.INVALID,
        _("The membership history is not consistent (period %(number)d).")
        % {"number": position + 1},
    )


def _check_history(periods: Sequence[PastPeriod], today: date) -> None:
    kinds = set(SubscriptionKind.values)
    for position, period in enumerate(periods):
        previous = periods[period.previous] if period.previous is not None else None
        sound = (
            period.kind in kinds
            and not period.plan.is_default
            and period.plan.pk is not None
            and period.starts_on < period.ends_on
            and period.issued_on <= min(today, period.starts_on)
            and (period.paid_on is None or period.issued_on <= period.paid_on <= today)
            and (period.paid_on is not None or period.kind == SubscriptionKind.RENEWAL)
            and (period.kind == SubscriptionKind.NEW) == (previous is None)
            and (period.previous is None or 0 <= period.previous < position)
            and (previous is None or previous.company.pk == period.company.pk)
        )
        if not sound:
            raise _history_refusal(position)


def _past_outcome(
    periods: Sequence[PastPeriod], position: int, followers: list[PastPeriod], today: date
) -> tuple[str, date | None]:
    """What the services and the timer had made of a period by `today`: its status and the
    day it was closed (None while open). `followers`: the paid periods that follow or replace
    it."""
    period = periods[position]
    grace = timedelta(selectors.grace_days())
    if period.paid_on is None:  # a renewal never paid: withdrawn when its period expired
        assert period.previous is not None  # checked by _check_history
        lapse = periods[period.previous].ends_on + grace
        if lapse <= today:
            return SubscriptionStatus.CANCELLED, lapse
        return SubscriptionStatus.PENDING, None
    upgrades = [later for later in followers if later.kind == SubscriptionKind.UPGRADE]
    if upgrades:
        return SubscriptionStatus.REPLACED, upgrades[0].paid_on
    if period.ends_on > today:
        return SubscriptionStatus.ACTIVE, None
    if followers:
        return SubscriptionStatus.ENDED, period.ends_on
    if period.auto_renew and period.ends_on + grace > today:
        return SubscriptionStatus.ACTIVE, None  # in its grace period
    expired_on = period.ends_on + grace if period.auto_renew else period.ends_on
    return SubscriptionStatus.EXPIRED, expired_on


def _at(day: date, hour: int, *, now: datetime) -> datetime:
    """A moment of `day` (the site's time zone), never later than `now`."""
    return min(timezone.make_aware(datetime.combine(day, time(hour))), now)


def _owners(company_ids: set[int]) -> dict[int, Any]:
    owners: dict[int, Any] = {}
    for member in (
        Membership.objects.filter(company_id__in=company_ids, role=Role.OWNER)
        .select_related("user")
        .order_by("-pk")
    ):
        owners[member.company_id] = member.user
    return owners


def _past_subscriptions(
    periods: Sequence[PastPeriod], outcomes: list[tuple[str, date | None]], *, now: datetime
) -> list[Subscription]:
    owners = _owners({period.company.pk for period in periods})
    rows = []
    for period, (status, closed_on) in zip(periods, outcomes, strict=True):
        row = Subscription(
            **{name: getattr(period, name) for name in PAST_FIELDS},
            status=status,
            created_at=_at(period.issued_on, 9, now=now),
            created_by=None
            if period.kind == SubscriptionKind.RENEWAL
            else owners.get(period.company.pk),
            activated_at=_at(period.paid_on, 10, now=now) if period.paid_on else None,
            closed_at=_at(closed_on, 10 if status == SubscriptionStatus.REPLACED else 0, now=now)
            if closed_on
            else None,
        )
        row.clean_fields(exclude=["company", "plan", "previous", "created_by"])
        rows.append(row)
    Subscription.objects.bulk_create(rows, batch_size=JOB_BATCH)
    for row, period in zip(rows, periods, strict=True):
        if period.previous is not None:
            row.previous = rows[period.previous]
    Subscription.objects.bulk_update(
        [row for row in rows if row.previous is not None], ["previous"], batch_size=JOB_BATCH
    )
    return rows


def _past_credit(periods: Sequence[PastPeriod], period: PastPeriod) -> Decimal:
    """The credit of an upgrade: the unused days of the period it replaces (`selectors`'
    change quote, on the day the upgrade started)."""
    if period.kind != SubscriptionKind.UPGRADE or period.previous is None:
        return Decimal(0)
    replaced = periods[period.previous]
    credit = credit_for(
        price_paid=replaced.plan.price,
        starts_on=replaced.starts_on,
        ends_on=replaced.ends_on,
        on=period.starts_on,
        **selectors.conversion(replaced.plan.currency, period.plan.currency),
        currency=period.plan.currency,
    )
    return min(credit, period.plan.price)


def _past_invoices(
    periods: Sequence[PastPeriod], rows: list[Subscription], *, actor: Any
) -> list[Invoice]:
    """The invoice of each period, numbered per year of issue in the order they were issued."""
    order = sorted(range(len(periods)), key=lambda at: (periods[at].issued_on, at))
    sequences: dict[int, int] = {}
    for year in sorted({periods[position].issued_on.year for position in order}):
        issued = [position for position in order if periods[position].issued_on.year == year]
        first = _take_numbers(year, len(issued))
        sequences.update({position: first + offset for offset, position in enumerate(issued)})
    buyers: dict[int, dict[str, str]] = {}
    invoices = []
    for position in order:
        period, row = periods[position], rows[position]
        if period.company.pk not in buyers:
            buyers[period.company.pk] = _buyer_details(period.company)
        invoice = _invoice_for(
            row,
            price=period.plan.price,
            credit=_past_credit(periods, period),
            issued_on=period.issued_on,
            sequence=sequences[position],
            buyer=buyers[period.company.pk],
            created_at=row.created_at,
        )
        if period.paid_on is not None:
            invoice.status, invoice.paid_at = InvoiceStatus.PAID, row.activated_at
            invoice.confirmed_by = actor
        elif row.status == SubscriptionStatus.CANCELLED:
            invoice.status = InvoiceStatus.VOID
        invoice.clean_fields(exclude=["company", "subscription", "confirmed_by"])
        invoices.append(invoice)
    return Invoice.objects.bulk_create(invoices, batch_size=JOB_BATCH)


@transaction.atomic
def subscriptions_record_history(
    *, actor: Any, periods: Sequence[PastPeriod], today: date | None = None
) -> list[Subscription]:
    """Write a recorded past (operators only: the demo's generated history, an import from an
    earlier billing system): each period with its invoice, left as the services and the timer
    would have left them by `today` (paid, replaced by an upgrade, ended, expired after its
    grace period, a renewal waiting for its payment or withdrawn unpaid). Invoices are numbered
    without gaps per year of issue, in the order they were issued, from the year's locked
    counter; each company gets one audit entry."""
    require_operator(actor)
    today = today or timezone.localdate()
    now = timezone.now()
    _check_history(periods, today)
    followers: dict[int, list[PastPeriod]] = {}
    for period in periods:
        if period.previous is not None and period.paid_on is not None:
            followers.setdefault(period.previous, []).append(period)
    outcomes = [
        _past_outcome(periods, position, followers.get(position, []), today)
        for position in range(len(periods))
    ]
    rows = _past_subscriptions(periods, outcomes, now=now)
    _past_invoices(periods, rows, actor=actor)
    record_changes(kind=OutboxKind.COMPANY, object_ids=sorted({p.company.pk for p in periods}))
    counts = Counter(period.company.pk for period in periods)
    for company in {period.company.pk: period.company for period in periods}.values():
        audit_record(
            actor=actor,
            action="subscription.history_record",
            target=company,
            changes={"periods": [None, counts[company.pk]]},
        )
    return rows
