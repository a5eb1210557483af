"""The operator's renewal analytics (#14) on a generated history: the renewal rate, churn, active
paying members and revenue recomputed here from the raw rows (plain Python over the
subscriptions and invoices, not through `membership.analytics`) must match; the generated
history looks as the services and the timer leave it; the edge cases; who may see the page,
the CSV and the API; the CSV's byte-order mark and formula guard."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from tests.api_client import ApiClient
from tests.factories.accounts import make_operator
from tests.factories.companies import make_cast, make_company
from tests.factories.membership import gold, make_plan
from tests.pages import log_in, page_url
from tradepost.accounts.errors import AccountError
from tradepost.companies.models import Company
from tradepost.demo.memberships import SILVER, past_periods, plan_memberships
from tradepost.membership import services
from tradepost.membership.analytics import membership_analytics
from tradepost.membership.models import Invoice, Plan, Subscription, SubscriptionKind
from tradepost.membership.models import SubscriptionStatus as Status
from tradepost.membership.proration import add_months
from tradepost.membership.services import PastPeriod
from tradepost.money.models import ExchangeRate

pytestmark = pytest.mark.django_db

#: The day the generated history runs up to (before the real today: no moment is capped).
TODAY = date(2026, 10, 20)
GRACE = 14
COUNTRIES = ["CN", "TW", "VN", "US", "DE", "TR", "HK", "IN"]


@pytest.fixture(autouse=True)
def _grace(settings):
    settings.TRADEPOST_MEMBERSHIP_GRACE_DAYS = GRACE


def silver() -> Plan:
    return make_plan(**SILVER)


def record(periods: list[PastPeriod], *, today: date = TODAY) -> list[Subscription]:
    return services.subscriptions_record_history(
        actor=make_operator(), periods=periods, today=today
    )


def generate(companies: int = 90, *, seed: int = 7, today: date = TODAY) -> list[Company]:
    """The demo's generated history (`demo.memberships`) for `companies` new companies."""
    rows = [
        make_company(owner=None, country=COUNTRIES[index % len(COUNTRIES)])
        for index in range(companies)
    ]
    plans = {"gold": gold(), "silver": silver()}
    history = plan_memberships(
        seed=seed, companies=companies, today=today, grace_days=GRACE, skip=frozenset()
    )
    record(past_periods(history, companies=rows, plans=plans), today=today)
    return rows


@pytest.fixture
def history():
    return generate()


def analytics(**filters):
    return membership_analytics(user=make_operator(), today=TODAY, **filters)


# --- the independent recomputation -----------------------------------------------------------


def paid_rows() -> list[dict]:
    return [
        row
        for row in Subscription.objects.values(
            "id",
            "company_id",
            "company__country",
            "plan_id",
            "starts_on",
            "ends_on",
            "status",
            "activated_at",
            "closed_at",
        )
        if row["activated_at"] is not None
    ]


def renewed(row: dict, rows: list[dict]) -> bool:
    """Another paid period of the company starts on the end day or within the grace days."""
    return any(
        other["id"] != row["id"]
        and other["company_id"] == row["company_id"]
        and row["ends_on"] <= other["starts_on"] < row["ends_on"] + timedelta(GRACE)
        for other in rows
    )


def came_up(rows: list[dict], plan_id=None, today=TODAY) -> list[tuple[dict, bool]]:
    return [
        (row, renewed(row, rows))
        for row in rows
        if row["status"] != Status.REPLACED
        and (plan_id is None or row["plan_id"] == plan_id)
        and row["ends_on"] + timedelta(GRACE) <= today
    ]


def tally(pairs) -> tuple[int, int]:
    pairs = list(pairs)
    return len(pairs), sum(1 for _row, was_renewed in pairs if was_renewed)


def covered_until(row: dict) -> date:
    if row["status"] == Status.REPLACED:
        replaced_on = timezone.localdate(row["closed_at"])
        return min(row["ends_on"], max(row["starts_on"], replaced_on))
    return row["ends_on"]


def members_in(rows: list[dict], month: date, plan_id=None) -> set[int]:
    following = add_months(month, 1)
    return {
        row["company_id"]
        for row in rows
        if (plan_id is None or row["plan_id"] == plan_id)
        and max(row["starts_on"], month) < min(covered_until(row), following)
    }


def revenue_in(month: date, plan_id=None) -> Decimal:
    usd = {rate.currency: rate.rate_to_usd for rate in ExchangeRate.objects.all()}
    total = Decimal(0)
    for invoice in Invoice.objects.filter(status="paid").select_related("subscription"):
        paid = timezone.localdate(invoice.paid_at)
        if (paid.year, paid.month) != (month.year, month.month):
            continue
        if plan_id is not None and invoice.subscription.plan_id != plan_id:
            continue
        if invoice.currency == "USD":
            total += invoice.total
        else:
            amount = invoice.total * usd[invoice.currency] / usd["USD"]
            total += amount.quantize(Decimal("0.0001"))
    return total.quantize(Decimal("0.01"))


# --- the generated history matches the recomputation -----------------------------------------


def test_the_renewal_rate_and_churn_match_a_recomputation(history):
    rows = paid_rows()
    found = analytics()
    pairs = came_up(rows)
    last = TODAY - timedelta(GRACE)
    first = add_months(last, -12) + timedelta(1)
    assert (found.headline.came_up, found.headline.renewed) == tally(
        pair for pair in pairs if first <= pair[0]["ends_on"] <= last
    )
    assert found.headline.came_up >= 10
    assert 0.5 < found.headline.rate < 0.95
    by_year = {year: (cell.came_up, cell.renewed) for year, cell in found.by_year}
    expected = {
        year: tally(pair for pair in pairs if pair[0]["ends_on"].year == year)
        for year in {row["ends_on"].year for row, _renewed in pairs}
    }
    assert by_year == expected
    for year, cell in found.by_year:
        assert cell.churned == cell.came_up - cell.renewed
    undecided = [
        row
        for row in rows
        if row["status"] != Status.REPLACED
        and row["ends_on"] <= TODAY < row["ends_on"] + timedelta(GRACE)
    ]
    assert found.undecided == len(undecided)


def test_renewals_by_cohort_and_by_plan_match_a_recomputation(history):
    rows = paid_rows()
    found = analytics()
    cohort = {}
    for row in sorted(rows, key=lambda row: row["starts_on"]):
        cohort.setdefault(row["company_id"], row["starts_on"].year)
    pairs = came_up(rows)
    expected = defaultdict(lambda: [0, 0])
    for row, was_renewed in pairs:
        cell = expected[cohort[row["company_id"]], row["ends_on"].year]
        cell[0] += 1
        cell[1] += int(was_renewed)
    got = {
        (line.key, year): [cell.came_up, cell.renewed]
        for line in found.by_cohort
        for year, cell in zip(found.years, line.by_year, strict=True)
        if cell.came_up
    }
    assert got == dict(expected)
    for line in found.by_plan:
        assert (line.total.came_up, line.total.renewed) == tally(
            pair for pair in pairs if pair[0]["plan_id"] == line.key.pk
        )
    assert {line.key.code for line in found.by_plan} == {"gold", "silver"}


def test_the_plan_and_year_filters_match_a_recomputation(history):
    rows = paid_rows()
    plan = gold()
    year = TODAY.year - 1
    found = analytics(plan_code="gold", year=year)
    pairs = [pair for pair in came_up(rows, plan.pk) if pair[0]["ends_on"].year == year]
    assert (found.headline.came_up, found.headline.renewed) == tally(pairs)
    assert [(y, cell.came_up, cell.renewed) for y, cell in found.by_year] == (
        [(year, *tally(pairs))] if pairs else []
    )
    assert found.months == [date(year, month, 1) for month in range(1, 13)]
    for line in found.actives_by_month:
        assert line.total == len(members_in(rows, line.key, plan.pk))
    for line in found.revenue_by_month:
        assert line.total == revenue_in(line.key, plan.pk)


def test_active_members_by_month_plan_and_country_match_a_recomputation(history):
    rows = paid_rows()
    found = analytics()
    assert found.months[-1] == date(TODAY.year, TODAY.month, 1)
    assert found.months[0] == min(row["starts_on"] for row in rows).replace(day=1)
    for line in found.actives_by_month:
        assert line.total == len(members_in(rows, line.key))
        assert line.by_plan == [len(members_in(rows, line.key, plan.pk)) for plan in found.plans]
    last = found.months[-1]
    countries = defaultdict(set)
    for company in members_in(rows, last):
        countries[next(r["company__country"] for r in rows if r["company_id"] == company)].add(
            company
        )
    assert {line.key: line.total for line in found.actives_by_country} == {
        country: len(ids) for country, ids in countries.items()
    }
    assert max(line.total for line in found.actives_by_month) >= 10


def test_revenue_by_month_matches_a_recomputation_in_us_dollars(history):
    found = analytics()
    plans = found.plans
    for line in found.revenue_by_month:
        assert line.total == revenue_in(line.key)
        assert line.by_plan == [revenue_in(line.key, plan.pk) for plan in plans]
    assert found.revenue_total == sum((line.total for line in found.revenue_by_month), Decimal(0))
    assert found.revenue_total > 0 and found.missing_currencies == []
    # Silver is priced in yuan: its dollars are fewer than its yuan.
    silver_yuan = sum(
        Invoice.objects.filter(status="paid", currency="CNY").values_list("total", flat=True),
        Decimal(0),
    )
    silver_dollars = sum(
        (
            line.by_plan[plans.index(Plan.objects.get(code="silver"))]
            for line in found.revenue_by_month
        ),
        Decimal(0),
    )
    assert 0 < silver_dollars < silver_yuan


# --- the generated history looks as the services leave it ------------------------------------


def test_the_generated_history_renews_churns_and_upgrades(history):
    kinds = set(Subscription.objects.values_list("kind", flat=True))
    assert kinds >= {"new", "renewal", "upgrade"}
    statuses = set(Subscription.objects.values_list("status", flat=True))
    assert statuses >= {"active", "ended", "expired", "replaced"}
    assert Subscription.objects.filter(status="cancelled").exists()  # renewals never paid


def test_invoice_numbers_run_without_gaps_per_year_in_issue_order(history):
    by_year = defaultdict(list)
    for invoice in Invoice.objects.order_by("year", "sequence"):
        by_year[invoice.year].append(invoice)
        assert invoice.number == f"TP-{invoice.year}-{invoice.sequence:06d}"
        assert invoice.issued_on.year == invoice.year
        assert invoice.period_start == invoice.subscription.starts_on
        assert invoice.total == invoice.price - invoice.credit
    assert len(by_year) >= 3
    for invoices in by_year.values():
        assert [invoice.sequence for invoice in invoices] == list(range(1, len(invoices) + 1))
        days = [invoice.issued_on for invoice in invoices]
        assert days == sorted(days)
    assert Subscription.objects.count() == Invoice.objects.count()
    assert not Invoice.objects.filter(status="paid", paid_at__isnull=True).exists()
    upgrades = Invoice.objects.filter(subscription__kind=SubscriptionKind.UPGRADE)
    assert upgrades.exists() and all(invoice.credit > 0 for invoice in upgrades)


def test_the_timer_finds_nothing_left_to_do_in_the_generated_history(history):
    before = list(Subscription.objects.order_by("pk").values_list("pk", "status"))
    assert services.renewals_issue_due(today=TODAY) == 0
    assert services.subscriptions_expire_due(today=TODAY) == 0
    assert list(Subscription.objects.order_by("pk").values_list("pk", "status")) == before
    assert Subscription.objects.filter(status="pending").values("company").count() == len(
        set(Subscription.objects.filter(status="pending").values_list("company", flat=True))
    )


def test_the_generated_history_is_deterministic():
    first = plan_memberships(
        seed=3, companies=40, today=TODAY, grace_days=GRACE, skip=frozenset({0, 1})
    )
    again = plan_memberships(
        seed=3, companies=40, today=TODAY, grace_days=GRACE, skip=frozenset({0, 1})
    )
    assert first == again and first
    assert not {item.company_index for item in first} & {0, 1}
    assert min(item.starts_on for item in first) >= TODAY - timedelta(3 * 365)


# --- edge cases ------------------------------------------------------------------------------


def test_no_paid_member_gives_no_rate_and_no_division_by_zero():
    found = analytics()
    assert found.headline.came_up == 0 and found.headline.rate is None
    assert found.headline.churn_rate is None
    assert found.by_year == [] and found.by_cohort == [] and found.by_plan == []
    assert found.months == [] and found.actives_by_month == [] and found.revenue_total == 0
    filtered = analytics(plan_code="gold", year=TODAY.year)
    assert filtered.headline.rate is None
    assert all(line.total == 0 for line in filtered.actives_by_month)


def _period(company, plan, starts_on, **fields):
    values = {
        "kind": SubscriptionKind.NEW,
        "ends_on": add_months(starts_on, 12),
        "issued_on": starts_on,
        "paid_on": starts_on,
    }
    values.update(fields)
    return PastPeriod(company=company, plan=plan, starts_on=starts_on, **values)


def _renewal(company, plan, previous_end, previous, paid_on):
    return _period(
        company,
        plan,
        previous_end,
        kind=SubscriptionKind.RENEWAL,
        issued_on=previous_end - timedelta(30),
        paid_on=paid_on,
        previous=previous,
    )


def test_a_period_in_its_grace_period_is_undecided_until_the_grace_is_over():
    company = make_company()
    end = TODAY - timedelta(5)  # ended 5 days ago, its renewal not paid yet
    record(
        [
            _period(company, gold(), add_months(end, -12)),
            _renewal(company, gold(), end, 0, None),
        ]
    )
    assert list(Subscription.objects.order_by("pk").values_list("status", flat=True)) == [
        "active",
        "pending",
    ]
    found = analytics()
    assert found.undecided == 1
    assert found.headline.came_up == 0 and found.headline.rate is None
    assert found.actives_by_month[-1].total == 1  # its paid days from the 1st to the 14th
    later = membership_analytics(user=make_operator(), today=end + timedelta(GRACE))
    assert later.undecided == 0
    assert (later.headline.came_up, later.headline.renewed) == (1, 0)
    assert later.by_year[0][1].churned == 1


def test_a_renewal_paid_late_in_the_grace_period_is_a_renewal():
    company = make_company()
    end = TODAY - timedelta(60)
    record(
        [
            _period(company, gold(), add_months(end, -12)),
            _renewal(company, gold(), end, 0, end + timedelta(GRACE - 1)),
        ]
    )
    found = analytics()
    assert (found.headline.came_up, found.headline.renewed) == (1, 1)
    assert found.headline.rate == 1.0


def test_coming_back_after_the_grace_period_is_a_churn_and_a_new_period():
    company = make_company()
    end = TODAY - timedelta(200)
    back = end + timedelta(GRACE)
    record(
        [
            _period(company, gold(), add_months(end, -12), auto_renew=False),
            _period(company, gold(), back),
        ]
    )
    assert (analytics().headline.came_up, analytics().headline.renewed) == (1, 0)


def test_an_upgrade_in_the_middle_of_a_period_is_not_a_churn():
    company = make_company(country="VN")
    silver_plan = silver()
    start = TODAY - timedelta(500)
    upgrade_day = start + timedelta(100)
    record(
        [
            _period(company, silver_plan, start),
            _period(
                company,
                gold(),
                upgrade_day,
                kind=SubscriptionKind.UPGRADE,
                previous=0,
                paid_on=upgrade_day + timedelta(3),
            ),
        ]
    )
    silver_row, gold_row = Subscription.objects.order_by("pk")
    assert (silver_row.status, gold_row.status) == ("replaced", "expired")
    assert gold_row.invoice.credit > 0
    found = analytics()
    # The Silver period never came up; the Gold one came up and was not renewed.
    assert [(year, cell.came_up, cell.renewed) for year, cell in found.by_year] == [
        (gold_row.ends_on.year, 1, 0)
    ]
    assert [line.key.code for line in found.by_plan] == ["gold"]
    month = upgrade_day.replace(day=1)
    line = next(line for line in found.actives_by_month if line.key == month)
    assert line.total == 1  # one company, on both plans that month
    assert dict(zip([plan.code for plan in found.plans], line.by_plan, strict=True)) == {
        "gold": 1,
        "silver": 1,
    }
    after = next(line for line in found.actives_by_month if line.key == add_months(month, 2))
    assert dict(zip([plan.code for plan in found.plans], after.by_plan, strict=True)) == {
        "gold": 1,
        "silver": 0,
    }


def test_a_currency_without_a_rate_is_left_out_of_the_revenue_and_named():
    company = make_company()
    record([_period(company, silver(), TODAY - timedelta(40))])
    assert analytics().revenue_total > 0
    ExchangeRate.objects.filter(currency="CNY").delete()
    found = analytics()
    assert found.revenue_total == 0 and found.missing_currencies == ["CNY"]


def test_a_history_that_does_not_hold_together_is_refused():
    company = make_company()
    with pytest.raises(services.MembershipError):
        record([_period(company, gold(), TODAY - timedelta(10), paid_on=None)])
    with pytest.raises(services.MembershipError):
        record([_period(company, gold(), TODAY - timedelta(10), kind=SubscriptionKind.RENEWAL)])
    with pytest.raises(AccountError):
        services.subscriptions_record_history(
            actor=make_cast().owner,
            periods=[_period(company, gold(), TODAY - timedelta(10))],
            today=TODAY,
        )
    assert not Subscription.objects.exists() and not Invoice.objects.exists()


# --- who may see it --------------------------------------------------------------------------

WHO = ["anonymous", "loner", "member", "owner", "outsider", "operator"]


@pytest.fixture
def cast_with_history(cast):
    generate(12, today=timezone.localdate())
    return cast


def _browser(client, cast, who):
    user = cast.user(who)
    return log_in(client, user) if user is not None else client


@pytest.mark.parametrize("who", WHO)
def test_only_operators_see_the_page_and_the_csv(client, cast_with_history, who):
    browser = _browser(client, cast_with_history, who)
    before = Subscription.objects.count(), Invoice.objects.count()
    page = browser.get(page_url("membership:analytics"))
    download = browser.get(page_url("membership:analytics_csv", table="renewals-by-year"))
    if who == "operator":
        assert (page.status_code, download.status_code) == (200, 200)
        assert download["Content-Type"].startswith("text/csv")
    elif who == "anonymous":
        assert (page.status_code, download.status_code) == (302, 302)
        assert "/accounts/login/" in page["Location"]
    else:
        assert (page.status_code, download.status_code) == (404, 404)
    assert (Subscription.objects.count(), Invoice.objects.count()) == before


@pytest.mark.parametrize("who", WHO)
def test_only_operators_read_the_api(cast_with_history, who):
    answer = ApiClient(cast_with_history.user(who), base="/api/v1").get(
        "/operator/membership/analytics"
    )
    expected = {"anonymous": 401, "operator": 200}.get(who, 403)
    assert answer.status_code == expected
    if who == "operator":
        body = answer.json()
        assert set(body["plans"]) == {"gold", "silver"}
        assert body["members_by_month"][-1]["month"] == f"{timezone.localdate():%Y-%m}"
    else:
        assert "by_year" not in answer.json()


@pytest.mark.parametrize("language", ["en", "zh-hans", "zh-hant"])
def test_the_page_shows_the_headline_tables_and_chart_data_in_each_language(
    client, cast_with_history, language
):
    browser = _browser(client, cast_with_history, "operator")
    page = browser.get(page_url("membership:analytics", language))
    html = page.content.decode()
    assert page.status_code == 200
    assert f'<html lang="{language}">' in html
    assert 'id="analytics-data" type="application/json"' in html
    assert "membership-analytics.js" in html and "<script>" not in html
    assert "renewals-by-cohort.csv" in html and "revenue-by-month.csv" in html
    silver_name = {"en": "Silver Supplier", "zh-hans": "银牌供应商", "zh-hant": "銀牌供應商"}
    assert silver_name[language] in html


def test_the_operator_desk_links_to_the_analytics(client, cast):
    browser = _browser(client, cast, "operator")
    html = browser.get(page_url("insights:operator_desk")).content.decode()
    assert page_url("membership:analytics") in html


def test_the_filters_are_applied_and_a_bad_one_is_refused(client, cast_with_history):
    browser = _browser(client, cast_with_history, "operator")
    year = timezone.localdate().year
    page = browser.get(page_url("membership:analytics"), {"plan": "gold", "year": year})
    assert page.status_code == 200
    assert f"renewals-by-year.csv?plan=gold&amp;year={year}" in page.content.decode()
    bad = browser.get(page_url("membership:analytics"), {"plan": "nope", "year": "x"})
    assert bad.status_code == 200 and 'class="errorlist nonfield"' in bad.content.decode()
    csv_bad = browser.get(
        page_url("membership:analytics_csv", table="renewals-by-year"), {"year": "1"}
    )
    assert csv_bad.status_code == 400
    assert browser.get(page_url("membership:analytics_csv", table="nothing")).status_code == 404
    api = ApiClient(cast_with_history.operator, base="/api/v1")
    assert api.get("/operator/membership/analytics", plan="nope").status_code == 422
    assert api.get("/operator/membership/analytics", year=1800).status_code == 422
    filtered = api.get("/operator/membership/analytics", plan="gold", year=year).json()
    assert filtered["plans"] == ["gold"] and filtered["year"] == year


# --- the CSV ---------------------------------------------------------------------------------


def _rows(response) -> list[list[str]]:
    body = response.content
    assert body.startswith(b"\xef\xbb\xbf")  # the byte-order mark Excel needs
    return list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))


@pytest.mark.parametrize(
    "name", ['=HYPERLINK("http://x")', "+1+2", "-2+3", "@SUM(A1)", "\tTab", "\rReturn"]
)
def test_a_plan_name_that_starts_like_a_formula_is_kept_as_text(client, cast, name):
    plan = make_plan(name_en=name, code="odd")
    company = make_company()
    record(
        [_period(company, plan, timezone.localdate() - timedelta(400))], today=timezone.localdate()
    )
    browser = _browser(client, cast, "operator")
    rows = _rows(browser.get(page_url("membership:analytics_csv", table="renewals-by-plan")))
    assert rows[1][0] == "'" + name
    header = _rows(browser.get(page_url("membership:analytics_csv", table="members-by-month")))[0]
    assert "'" + name in header


def test_the_csv_carries_chinese_names_and_plain_numbers(client, cast_with_history):
    browser = _browser(client, cast_with_history, "operator")
    response = browser.get(
        page_url("membership:analytics_csv", "zh-hans", table="members-by-country")
    )
    assert (
        response["Content-Disposition"]
        == 'attachment; filename="membership-members-by-country.csv"'
    )
    rows = _rows(response)
    assert "银牌供应商" in rows[0]
    months = _rows(browser.get(page_url("membership:analytics_csv", table="members-by-month")))
    assert months[-1][0] == f"{timezone.localdate():%Y-%m}"
    assert all(cell.isdigit() for cell in months[-1][1:])
    revenue = _rows(browser.get(page_url("membership:analytics_csv", table="revenue-by-month")))
    assert all(Decimal(cell) >= 0 for row in revenue[1:] for cell in row[1:])


def test_the_analytics_cost_the_same_few_queries_whatever_the_history(
    history, django_assert_max_num_queries
):
    operator = make_operator()
    with django_assert_max_num_queries(5):
        membership_analytics(user=operator, today=TODAY)
    with django_assert_max_num_queries(6):
        membership_analytics(user=operator, today=TODAY, plan_code="gold", year=TODAY.year)
