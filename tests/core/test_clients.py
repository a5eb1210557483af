"""The client address the rate limits count: REMOTE_ADDR, or behind the configured number of
proxies the X-Forwarded-For entry they vouch for (never one the client wrote itself)."""

from __future__ import annotations

import pytest
from django.test import Client, RequestFactory

from tradepost.core.clients import client_address


def _request(remote: str, forwarded: str | None = None):
    extra = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    return RequestFactory().get("/", **extra)


def test_without_proxies_the_header_is_ignored(settings):
    settings.TRADEPOST_PROXY_COUNT = 0
    assert client_address(_request("198.51.100.4", "203.0.113.9")) == "198.51.100.4"


def test_behind_one_proxy_the_address_it_saw_counts(settings):
    settings.TRADEPOST_PROXY_COUNT = 1
    # The client wrote "1.2.3.4" itself; nginx appended the address it saw.
    assert client_address(_request("127.0.0.1", "1.2.3.4, 203.0.113.9")) == "203.0.113.9"
    assert client_address(_request("127.0.0.1", "203.0.113.9")) == "203.0.113.9"
    assert client_address(_request("127.0.0.1")) == "127.0.0.1"


def test_behind_two_proxies(settings):
    settings.TRADEPOST_PROXY_COUNT = 2
    assert client_address(_request("10.0.0.2", "1.2.3.4, 203.0.113.9, 10.0.0.1")) == "203.0.113.9"


@pytest.mark.django_db
def test_logins_behind_the_proxy_are_counted_per_client(settings):
    """Five failures from one client lock that client out, not every visitor behind nginx
    (here the owner's own browser, which signed in before: accounts.devices)."""
    from tests.factories.accounts import PASSWORD, make_user

    settings.TRADEPOST_PROXY_COUNT = 1
    user = make_user(email="seller@example.com")
    owner = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.4")
    guesser = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.9")

    def login(client: Client, password: str):
        response = client.post(
            "/en/accounts/login/", {"username": user.email, "password": password}
        )
        client.post("/en/accounts/logout/")
        return response

    assert login(owner, PASSWORD).status_code == 302
    for _ in range(settings.AXES_FAILURE_LIMIT):
        login(guesser, "wrong password")
    assert login(guesser, PASSWORD).status_code == 429
    assert login(owner, PASSWORD).status_code == 302
