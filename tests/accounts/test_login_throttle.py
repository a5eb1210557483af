"""Guessing passwords on the login page is throttled (django-axes): after five failures for
one address from one client, even the right password is refused for a while, and the answer
is the same whether or not the address has an account."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories.accounts import PASSWORD, make_user

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
    elsewhere = Client(REMOTE_ADDR="203.0.113.9")  # the owner's own browser, used before
    assert _try(elsewhere, "buyer@example.com", PASSWORD).status_code == 302
    elsewhere.post("/en/accounts/logout/")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _try(client, "buyer@example.com", "nope")
    assert _try(client, "other@example.com", PASSWORD).status_code == 302
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


# --- password resets and sign-ups ---------------------------------------------------------


def test_password_resets_to_one_address_are_limited_and_look_the_same(
    client, settings, mailoutbox, django_capture_on_commit_callbacks, rate_limit_store
):
    make_user(email="seller@example.com")
    limit = settings.TRADEPOST_PASSWORD_RESETS_PER_HOUR
    answers = set()
    for _ in range(limit + 5):
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post("/en/accounts/password-reset/", {"email": "seller@example.com"})
        answers.add((response.status_code, response["Location"]))
    assert answers == {(302, "/en/accounts/password-reset/sent/")}
    assert len(mailoutbox) == limit
    # An unknown address is answered the same way, and counted the same way.
    for _ in range(limit + 1):
        response = client.post("/en/accounts/password-reset/", {"email": "nobody@example.com"})
        assert (response.status_code, response["Location"]) == (
            302,
            "/en/accounts/password-reset/sent/",
        )
    # Another address is not held back by the first one's limit.
    make_user(email="other@example.com")
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/en/accounts/password-reset/", {"email": "other@example.com"})
    assert len(mailoutbox) == limit + 1


def test_sign_ups_from_one_client_are_limited(client, settings, rate_limit_store):
    settings.TRADEPOST_SIGNUPS_PER_HOUR = 2

    def sign_up(n: int, who: Client):
        return who.post(
            "/zh-hans/accounts/signup/",
            {
                "email": f"new{n}@example.com",
                "password": "a long enough passphrase 42",
                "full_name": f"New {n}",
                "preferred_language": "en",
            },
        )

    for n in range(2):
        assert sign_up(n, Client()).status_code == 302
    refused = sign_up(3, Client())
    assert refused.status_code == 429
    assert "过去一小时内从您的网络创建的账户过多" in refused.content.decode()
    assert sign_up(4, Client(REMOTE_ADDR="203.0.113.7")).status_code == 302


def test_cache_limits_slide_over_the_previous_window(settings, monkeypatch):
    """Attempts of the last hour still count just after the hour turns (a fixed window
    would forgive them all at once), and stop counting as the window slides past them."""
    from datetime import UTC, datetime

    from django.core.cache import cache

    from tradepost.accounts import services

    settings.TRADEPOST_RATE_LIMIT_STORE = "cache"
    cache.clear()
    clock = {"now": datetime(2026, 12, 3, 10, 50, tzinfo=UTC)}
    monkeypatch.setattr(services.timezone, "now", lambda: clock["now"])

    def attempt() -> bool:
        return services._throttle(action="test", limits=[("key", 4)])

    assert [attempt() for _ in range(5)] == [True, True, True, True, False]
    clock["now"] = datetime(2026, 12, 3, 11, 5, tzinfo=UTC)  # 4 x 55/60 still counted
    assert attempt() is False
    clock["now"] = datetime(2026, 12, 3, 11, 50, tzinfo=UTC)  # 4 x 10/60 = 0.67 left
    assert [attempt() for _ in range(4)] == [True, True, True, False]
