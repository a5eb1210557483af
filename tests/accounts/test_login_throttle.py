"""Guessing passwords on the login page is throttled (django-axes): after five failures for
one address from one client, even the right password is refused for a while, and the answer
is the same whether or not the address has an account."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

LOGIN = "/en/accounts/login/"


def _try(client: Client, email: str, password: str):
    return client.post(LOGIN, {"username": email, "password": password})


def test_five_wrong_passwords_lock_the_login_even_for_the_right_one(client, settings):
    make_user(email="buyer@example.com")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _try(client, "buyer@example.com", "nope").status_code == 200
    locked = _try(client, "Buyer@Example.com ", "nope")  # same address, other spelling
    assert locked.status_code == 429
    assert "Too many attempts" in locked.content.decode()
    right = _try(client, "buyer@example.com", PASSWORD)
    assert right.status_code == 429
    assert "_auth_user_id" not in client.session


def test_unknown_addresses_are_answered_the_same_way(client, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        last = _try(client, "nobody@example.com", "nope")
    assert last.status_code == 429


def test_another_client_or_address_is_not_locked_out(client, settings):
    make_user(email="buyer@example.com")
    make_user(email="other@example.com")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _try(client, "buyer@example.com", "nope")
    assert _try(client, "other@example.com", PASSWORD).status_code == 302
    elsewhere = Client(REMOTE_ADDR="203.0.113.9")
    assert _try(elsewhere, "buyer@example.com", PASSWORD).status_code == 302


def test_a_success_clears_the_failures(client, settings):
    make_user(email="buyer@example.com")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        _try(client, "buyer@example.com", "nope")
    assert _try(client, "buyer@example.com", PASSWORD).status_code == 302
    client.post("/en/accounts/logout/")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _try(client, "buyer@example.com", "nope").status_code == 200


def test_the_lockout_page_is_in_the_visitors_language(client, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        last = client.post(
            "/zh-hant/accounts/login/", {"username": "x@example.com", "password": "nope"}
        )
    assert last.status_code == 429
    assert "嘗試次數過多" in last.content.decode()
