from unittest import mock

import pytest
from django.conf import settings
from django.core import signing
from django.urls import reverse
from django.utils import translation

from tests.accounts.helpers import link_path
from tests.factories.accounts import PASSWORD, make_user
from tradepost.accounts import links
from tradepost.accounts.models import User
from tradepost.accounts.selectors import user_can_publish

pytestmark = pytest.mark.django_db

SIGNUP = "/en/accounts/signup/"


def _signup_data(**overrides):
    data = {
        "email": "Ming.Li@Example.com",
        "full_name": "Li Ming",
        "password": "a-long-unusual-passphrase-7",
        "preferred_language": "en",
    }
    data.update(overrides)
    return data


def test_signup_sends_a_link_that_verifies_the_address(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    assert client.get(SIGNUP).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(SIGNUP, _signup_data())
    assert response.status_code == 302
    assert response["Location"] == reverse("accounts:dashboard")

    user = User.objects.get()
    assert user.email == "ming.li@example.com"
    assert user.full_name == "Li Ming"
    assert user.password.startswith(("md5$", "argon2"))
    assert not user.is_email_verified
    assert not user_can_publish(user)

    # Signed in, with the banner and a resend button.
    dashboard = client.get(reverse("accounts:dashboard"))
    assert dashboard.status_code == 200
    assert b"verification-banner" in dashboard.content

    assert len(mailoutbox) == 1
    message = mailoutbox[0]
    assert message.to == ["ming.li@example.com"]
    assert settings.SITE_URL + "/en/accounts/email/verify/" in message.body
    path = link_path(message)

    # GET only shows a button (mail scanners follow links); POST verifies.
    assert client.get(path).status_code == 200
    user.refresh_from_db()
    assert not user.is_email_verified
    client.logout()
    response = client.post(path)
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.is_email_verified
    assert user_can_publish(user)


def test_signup_form_defaults_to_the_interface_language(client):
    response = client.get("/zh-hans/accounts/signup/")
    assert response.context["form"]["preferred_language"].value() == "zh-hans"


def test_verification_email_is_in_the_users_language(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        client.post(SIGNUP, _signup_data(preferred_language="zh-hant"))
    message = mailoutbox[0]
    assert message.extra_headers["Content-Language"] == "zh-hant"
    assert "/zh-hant/accounts/email/verify/" in message.body


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"email": "not-an-email"}, "email"),
        ({"email": "x" * 250 + "@example.com"}, "email"),
        ({"full_name": "N" * 121}, "full_name"),
        ({"full_name": ""}, "full_name"),
        ({"password": "12345678"}, "password"),
        ({"password": "short"}, "password"),
        ({"password": "ming.li@example.com"}, "password"),
        ({"preferred_language": "klingon"}, "preferred_language"),
    ],
)
def test_signup_refuses_bad_input(client, mailoutbox, overrides, field):
    response = client.post(SIGNUP, _signup_data(**overrides))
    assert response.status_code == 200
    assert response.context["form"].errors.get(field), response.context["form"].errors
    assert not User.objects.exists()
    assert mailoutbox == []


def test_signup_refuses_an_address_in_use_whatever_its_case(client, mailoutbox):
    make_user(email="ming.li@example.com")
    response = client.post(SIGNUP, _signup_data(email="MING.LI@example.COM"))
    assert response.status_code == 200
    assert "already exists" in str(response.context["form"].errors["email"])
    assert User.objects.count() == 1


def test_resend_sends_a_new_link(client, mailoutbox, django_capture_on_commit_callbacks):
    user = make_user(verified=False)
    client.force_login(user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("accounts:resend_verification"))
    assert response.status_code == 302
    assert len(mailoutbox) == 1
    client.post(link_path(mailoutbox[0]))
    user.refresh_from_db()
    assert user.is_email_verified


def test_resend_for_a_verified_user_sends_nothing(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    client.force_login(make_user())
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("accounts:resend_verification"))
    assert mailoutbox == []


def test_tampered_link_is_refused(client):
    user = make_user(verified=False)
    token = links.make_verification_token(user_id=user.pk, email=user.email)
    with translation.override("en"):
        response = client.post(reverse("accounts:verify_email", args=[token[:-2] + "xx"]))
    assert response.status_code == 400
    user.refresh_from_db()
    assert not user.is_email_verified


def test_expired_link_is_refused(client):
    user = make_user(verified=False)
    four_days_ago = signing.time.time() - 4 * 86400
    with mock.patch.object(signing, "time", mock.Mock(time=lambda: four_days_ago)):
        token = links.make_verification_token(user_id=user.pk, email=user.email)
    with translation.override("en"):
        response = client.post(reverse("accounts:verify_email", args=[token]))
    assert response.status_code == 400
    assert b"expired" in response.content
    user.refresh_from_db()
    assert not user.is_email_verified


def test_link_for_a_previous_address_is_refused(client):
    user = make_user(verified=False)
    token = links.make_verification_token(user_id=user.pk, email="old@example.com")
    with translation.override("en"):
        response = client.post(reverse("accounts:verify_email", args=[token]))
    assert response.status_code == 400
    user.refresh_from_db()
    assert not user.is_email_verified


def test_login_with_email_in_any_case_and_logout(client):
    user = make_user(email="buyer@example.com")
    response = client.post(
        "/en/accounts/login/", {"username": "Buyer@Example.com", "password": PASSWORD}
    )
    assert response.status_code == 302
    assert int(client.session["_auth_user_id"]) == user.pk
    assert client.get("/en/accounts/logout/").status_code == 405
    assert client.post("/en/accounts/logout/").status_code == 302
    assert "_auth_user_id" not in client.session


def test_login_with_a_wrong_password_fails(client):
    make_user(email="buyer@example.com")
    response = client.post(
        "/en/accounts/login/", {"username": "buyer@example.com", "password": "nope"}
    )
    assert response.status_code == 200
    assert response.context["form"].non_field_errors()
    assert "_auth_user_id" not in client.session


def test_unverified_user_can_log_in(client):
    make_user(email="new@example.com", verified=False)
    response = client.post(
        "/en/accounts/login/", {"username": "new@example.com", "password": PASSWORD}
    )
    assert response.status_code == 302


def test_signup_follows_a_safe_next_only(client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            SIGNUP + "?next=/en/dashboard/company/", _signup_data(email="a@example.com")
        )
    assert response["Location"] == "/en/dashboard/company/"
    client.logout()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            SIGNUP + "?next=https://evil.example/", _signup_data(email="b@example.com")
        )
    assert response["Location"] == reverse("accounts:dashboard")


@pytest.mark.parametrize("relative", ["-1", "dashboard", "accounts:login"])
def test_a_next_that_is_not_a_path_from_the_root_is_not_followed(client, relative):
    """A relative `next` would be read as the name of a view (a 500 for a signed-in person
    opening the sign-up page, the probe found), or lead to the wrong page."""
    client.force_login(make_user())
    response = client.get(f"{SIGNUP}?next={relative}")
    assert response.status_code == 302
    assert response["Location"] == reverse("accounts:dashboard")


def test_user_can_publish_selector():
    from django.contrib.auth.models import AnonymousUser

    assert not user_can_publish(AnonymousUser())
    assert not user_can_publish(None)
    assert user_can_publish(make_user())
    assert not user_can_publish(make_user(verified=False))
    assert not user_can_publish(make_user(is_active=False))
