"""Login guessing limited per account too, with device cookies (accounts.devices): a guesser
spread over many addresses is slowed, then refused, on the account it guesses; the owner's own
device, which signed in before, still gets in, and the owner is told by email."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import get_resolver
from django.utils import timezone
from freezegun import freeze_time

from tests.factories.accounts import PASSWORD, make_user
from tradepost.accounts.devices import DEVICE_COOKIE, device_cookie, known_device

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _urls_loaded_before_the_clock_stops():
    # The API's schemas are built when the URLs are first loaded: not while freezegun's
    # stand-in for datetime is in place.
    assert get_resolver().url_patterns


LOGIN = "/en/accounts/login/"
VICTIM = "victim@example.com"


def _guesser(number: int) -> Client:
    """A client at its own address, with no cookie: one of many machines of a botnet."""
    return Client(REMOTE_ADDR=f"198.51.100.{number}")


def _try(client: Client, password: str, email: str = VICTIM, path: str = LOGIN):
    return client.post(path, {"username": email, "password": password})


def _owners_device() -> Client:
    device = Client(REMOTE_ADDR="203.0.113.7")
    assert _try(device, PASSWORD).status_code == 302
    assert DEVICE_COOKIE in device.cookies
    device.post("/en/accounts/logout/")
    return device


@pytest.mark.parametrize("rate_limit_store", ["database", "cache"], indirect=True)
def test_a_distributed_guesser_is_slowed_then_refused_and_the_owner_still_gets_in(
    settings, rate_limit_store, mailoutbox, django_capture_on_commit_callbacks
):
    make_user(email=VICTIM)
    device = _owners_device()  # one attempt from a new device: counted
    per_hour = settings.TRADEPOST_LOGIN_NEW_DEVICE_PER_HOUR
    let_through = 0
    slowed = 0
    with freeze_time(timezone.now()) as clock, django_capture_on_commit_callbacks(execute=True):
        for number in range(1, 40):  # each address tries once: no per-client limit applies
            answer = _try(_guesser(number), f"guess-{number}")
            told = answer.content.decode()
            if "paused" in told:
                assert answer.status_code == 429
                break
            if answer.status_code == 429:  # slowed: it waits, then goes on
                assert "Try again in" in told and 0 < int(answer["Retry-After"]) <= 120
                slowed += 1
                clock.tick(timedelta(seconds=61))
                continue
            assert answer.status_code == 200 and "not correct" in told
            let_through += 1
        else:
            pytest.fail("the guesser was never refused")
        clock.tick(timedelta(minutes=2))
        paused = _try(_guesser(99), PASSWORD)  # even the right password, from a new device
        assert paused.status_code == 429 and "paused" in paused.content.decode()
        assert _try(device, PASSWORD).status_code == 302  # the owner's own device
    assert slowed >= 1
    assert let_through == per_hour - 1  # the owner's first login counted too
    told = [mail for mail in mailoutbox if mail.to == [VICTIM]]
    assert len(told) == 1 and "trying to sign in" in told[0].subject


def test_the_per_client_limit_still_stops_one_guessing_client(client, settings):
    make_user(email=VICTIM)
    device = _owners_device()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        last = _try(device, "nope")
    assert last.status_code == 429 and "Too many attempts" in last.content.decode()


def test_an_unknown_address_is_answered_as_a_known_one_and_no_one_is_emailed(
    settings, mailoutbox, django_capture_on_commit_callbacks
):
    with freeze_time(timezone.now()) as clock, django_capture_on_commit_callbacks(execute=True):
        for number in range(1, 40):
            answer = _try(_guesser(number), "nope", email="nobody@example.com")
            if "paused" in answer.content.decode():
                break
            if "Try again in" in answer.content.decode():
                clock.tick(timedelta(seconds=61))
        assert answer.status_code == 429 and "paused" in answer.content.decode()
    assert mailoutbox == []


def test_a_forged_or_foreign_device_cookie_is_not_trusted(settings):
    make_user(email=VICTIM)
    other = device_cookie(None, "someone-else@example.com")
    assert not known_device(other, VICTIM)
    assert not known_device(other[:-2] + "xx", "someone-else@example.com")
    assert not known_device("garbage\x00\ud800", VICTIM)
    both = device_cookie(other, VICTIM)
    assert known_device(both, VICTIM) and known_device(both, "someone-else@example.com")
    assert known_device(both, " Victim@Example.com")


def test_a_password_reset_makes_the_browser_a_known_device(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    make_user(email=VICTIM)
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/en/accounts/password-reset/", {"email": VICTIM})
    link = next(line for line in mailoutbox[-1].body.splitlines() if "/password-reset/" in line)
    path = link[link.index("/en/") :].strip()
    form = client.get(path, follow=True)
    new = "a brand new long passphrase"
    done = client.post(form.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert done.status_code == 302
    assert known_device(client.cookies[DEVICE_COOKIE].value, VICTIM)


def test_the_pause_is_told_in_the_visitors_language(settings):
    make_user(email=VICTIM)
    with freeze_time(timezone.now()):
        for number in range(1, settings.TRADEPOST_LOGIN_NEW_DEVICE_PER_MINUTE + 2):
            answer = _try(_guesser(number), "nope", path="/zh-hans/accounts/login/")
    assert answer.status_code == 429
    assert "从新设备登录此账户的尝试次数过多" in answer.content.decode()
