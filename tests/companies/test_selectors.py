import pytest
from django.contrib.auth.models import AnonymousUser
from django.http import Http404

from tests.factories.companies import make_cast
from tradepost.companies.actors import actor_for
from tradepost.companies.errors import CompanyNotFound
from tradepost.companies.selectors import (
    access_company_for_edit,
    access_company_for_view,
)

pytestmark = pytest.mark.django_db


def test_membership_for():
    cast = make_cast()
    assert actor_for(cast.owner).membership.company == cast.company
    assert actor_for(cast.loner).membership is None
    assert actor_for(AnonymousUser()).membership is None
    assert actor_for(None).membership is None


def test_acting_company_is_the_one_company_of_an_active_member():
    cast = make_cast()
    for who in ("owner", "admin", "member"):
        user = getattr(cast, who)
        assert actor_for(user).company == cast.company
        assert actor_for(user).company_id == cast.company.pk
    for nobody in (cast.loner, AnonymousUser(), None):
        assert actor_for(nobody).company is None
        assert actor_for(nobody).company_id is None
    cast.member.is_active = False
    cast.member.save(update_fields=["is_active"])
    assert actor_for(cast.member).company is None
    assert actor_for(cast.member).membership is None


@pytest.mark.parametrize(
    ("who", "allowed"),
    [
        ("owner", True),
        ("admin", True),
        ("operator", True),
        ("member", False),
        ("outsider", False),
        ("loner", False),
    ],
)
def test_can_manage_and_access_for_edit(who, allowed):
    cast = make_cast()
    user = cast.user(who)
    assert actor_for(user).manages(cast.company) is allowed
    if allowed:
        assert access_company_for_edit(user=user, company_id=cast.company.pk) == cast.company
    else:
        with pytest.raises(CompanyNotFound):
            access_company_for_edit(user=user, company_id=cast.company.pk)


def test_not_found_and_not_yours_look_the_same():
    cast = make_cast()
    with pytest.raises(Http404) as missing:
        access_company_for_edit(user=cast.outsider, company_id=10**9)
    with pytest.raises(Http404) as not_yours:
        access_company_for_edit(user=cast.outsider, company_id=cast.company.pk)
    assert str(missing.value) == str(not_yours.value)


def test_anonymous_and_inactive_users_get_nothing():
    cast = make_cast()
    assert not actor_for(AnonymousUser()).manages(cast.company)
    with pytest.raises(CompanyNotFound):
        access_company_for_view(user=AnonymousUser(), company_id=cast.company.pk)
    cast.owner.is_active = False
    cast.owner.save()
    assert not actor_for(cast.owner).manages(cast.company)


def test_access_for_view_lets_members_in():
    cast = make_cast()
    assert access_company_for_view(user=cast.member, company_id=cast.company.pk) == cast.company
    with pytest.raises(CompanyNotFound):
        access_company_for_view(user=cast.outsider, company_id=cast.company.pk)
