"""Who is acting, and may they: the `Actor`, resolved once per request, and the pages' guard."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext

from tests.factories.companies import add_member, make_cast
from tests.pages import log_in, page_url
from tradepost.companies.actors import actor_for, actor_of_request
from tradepost.companies.errors import CompanyError, CompanyErrorCode
from tradepost.companies.models import Role
from tradepost.core.errors import ErrorKind

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("who", "role", "manages", "works_for"),
    [
        ("owner", Role.OWNER, True, True),
        ("admin", Role.ADMIN, True, True),
        ("member", Role.MEMBER, False, True),
        ("operator", None, True, True),
        ("outsider", None, False, False),
        ("loner", None, False, False),
    ],
)
def test_the_actor_answers_every_question_from_one_read(who, role, manages, works_for):
    cast = make_cast()
    with CaptureQueriesContext(connection) as queries:
        acting = actor_for(cast.user(who))
        answers = (
            acting.role_in(cast.company),
            acting.manages(cast.company),
            acting.works_for(cast.company),
            acting.company,
        )
    assert answers[:3] == (role, manages, works_for)
    assert len(queries) <= 2  # the membership with its company; the operator check
    # Only owners and admins of their own company manage it by role (what webhooks and
    # verification documents ask, where operators do not act for a company).
    assert (acting.managed_company == cast.company) is (who in ("owner", "admin"))


def test_an_operator_who_is_a_member_acts_for_that_company_only_by_role():
    cast = make_cast()
    add_member(cast.company, role=Role.MEMBER, user=cast.operator)
    acting = actor_for(cast.operator)
    assert acting.company == cast.company
    assert acting.manages(cast.company)  # as an operator
    assert acting.managed_company is None  # not as a member
    assert acting.managed_company_id is None


@pytest.mark.parametrize("nobody", ["anonymous", "none", "deactivated"])
def test_nobody_acts_for_a_company(nobody):
    cast = make_cast()
    user = {"anonymous": AnonymousUser(), "none": None, "deactivated": cast.owner}[nobody]
    if nobody == "deactivated":
        cast.owner.is_active = False
        cast.owner.save(update_fields=["is_active"])
    acting = actor_for(user)
    assert (acting.company, acting.role, acting.is_operator) == (None, None, False)
    assert not acting.manages(cast.company)
    assert not acting.works_for(cast.company)


@pytest.mark.parametrize("who", ["owner", "admin", "member", "outsider"])
def test_someone_who_acts_for_a_company_is_required_to(who):
    cast = make_cast()
    acting = actor_for(cast.user(who))
    expected = cast.other_company if who == "outsider" else cast.company
    assert acting.require_company() == expected


@pytest.mark.parametrize("who", ["loner", "operator", "anonymous"])
def test_requiring_a_company_refuses_who_acts_for_none(who):
    cast = make_cast()
    with pytest.raises(CompanyError) as refused:
        actor_for(cast.user(who) or AnonymousUser()).require_company()
    error = refused.value
    assert (error.code, error.kind) == (CompanyErrorCode.NO_COMPANY, ErrorKind.FORBIDDEN)
    assert error.code == "no-company" and error.title == "You do not act for a company"
    assert error.message == "You do not belong to a company."


def test_a_request_resolves_its_actor_once_and_again_for_another_user():
    cast = make_cast()
    request = RequestFactory().get("/")
    first = actor_of_request(request, cast.owner)
    with CaptureQueriesContext(connection) as queries:
        assert actor_of_request(request, cast.owner) is first
    assert len(queries) == 0
    other = actor_of_request(request, cast.member)
    assert other is not first and other.role == Role.MEMBER


# --- the pages' guard ---------------------------------------------------------------------


def test_a_visitor_is_sent_to_the_login():
    response = Client().get(page_url("sourcing:my_requests"))
    assert response.status_code == 302
    assert "/login" in response["Location"]


@pytest.mark.parametrize(
    ("page", "told"),
    [
        ("sourcing:create", "Create your company profile before posting"),
        ("products:list", "Create your company profile before adding products."),
        ("imports:list", "Create a company profile before adding products."),
        ("products:showcase", "Create your company profile before choosing a showcase."),
    ],
)
def test_somebody_without_a_company_is_sent_to_create_one_and_told_why(page, told):
    cast = make_cast()
    client = log_in(Client(), cast.loner)
    response = client.get(page_url(page), follow=True)
    assert response.redirect_chain[-1][0] == page_url("companies:create")
    assert told in response.content.decode()


def test_the_reason_is_told_in_the_users_language():
    cast = make_cast()
    client = log_in(Client(), cast.loner)
    response = client.get(page_url("products:list", "zh-hans"), follow=True)
    assert response.redirect_chain[-1][0] == page_url("companies:create", "zh-hans")
    assert "Create your company profile" not in response.content.decode()


@pytest.mark.parametrize(
    ("page", "destination"),
    [
        ("membership:overview", "membership:payments"),
        ("insights:supplier_desk", "insights:operator_desk"),
        ("trust:verification", "trust:queue"),
    ],
)
def test_an_operator_without_a_company_goes_to_the_operators_desk(page, destination):
    cast = make_cast()
    response = log_in(Client(), cast.operator).get(page_url(page))
    assert response.status_code == 302
    assert response["Location"] == page_url(destination)


@pytest.mark.parametrize(
    ("page", "refusal"),
    [
        ("membership:billing", "Only the company&#x27;s owner and admins can change"),
        ("companies:profile", "Only the owner and the admins can edit the company profile."),
        ("companies:invite", "Only the owner and the admins can invite people."),
        ("webhooks:list", "Only the owner and the admins of a company manage its webhooks."),
    ],
)
def test_a_member_is_refused_what_only_owners_and_admins_do(page, refusal):
    cast = make_cast()
    response = log_in(Client(), cast.member).get(page_url(page))
    assert response.status_code == 403
    assert refusal in response.content.decode()
    assert log_in(Client(), cast.admin).get(page_url(page)).status_code == 200


def test_a_page_that_names_a_company_checks_it():
    cast = make_cast()
    client = log_in(Client(), cast.outsider)
    named = f"{page_url('companies:members')}?company={cast.company.pk}"
    assert client.get(named).status_code == 404
    assert log_in(Client(), cast.member).get(named).status_code == 200
    assert log_in(Client(), cast.operator).get(named).status_code == 200
    products = f"{page_url('products:list')}?company={cast.company.pk}"
    assert log_in(Client(), cast.operator).get(products).status_code == 200
    # Only operators name a company on the products' pages: anyone else sees their own.
    own = client.get(products)
    assert own.status_code == 200 and own.context["company"] == cast.other_company
