"""With production settings (TRADEPOST_WEBHOOKS_ALLOW_PRIVATE off, the default) nothing is
delivered to a private, loopback, link-local, multicast or reserved address: not to one
written in the address, not to a host name that resolves to one (even among public ones),
and the connection goes to the address that was checked (DNS rebinding changes nothing)."""

from __future__ import annotations

import ipaddress
import socket

import pytest
from django.conf import settings
from django.db import transaction

from tests.factories.webhooks import add_endpoint, stored_endpoint
from tradepost.core.events import EventType, emit
from tradepost.webhooks import sending
from tradepost.webhooks.errors import WebhookError
from tradepost.webhooks.models import WebhookDelivery
from tradepost.webhooks.services import clean_endpoint_url

pytestmark = pytest.mark.django_db


def test_private_addresses_are_refused_by_default():
    assert settings.TRADEPOST_WEBHOOKS_ALLOW_PRIVATE is False


def _emit(company) -> None:
    with transaction.atomic():
        emit(EventType.PRODUCT_PUBLISHED, company_id=company.pk, payload={"product": {"id": 1}})


def _fake_dns(monkeypatch, answers: dict[str, list[str]]) -> list[str]:
    """Resolve the made-up names of `answers`; answers the names asked, in order."""
    asked: list[str] = []

    def getaddrinfo(host, port, *args, **kwargs):
        asked.append(host)
        return [
            (
                socket.AF_INET6 if ":" in address else socket.AF_INET,
                socket.SOCK_STREAM,
                6,
                "",
                (address, port),
            )
            for address in answers[host]
        ]

    monkeypatch.setattr(sending, "getaddrinfo", getaddrinfo)
    return asked


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "127.8.9.10",
        "::1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",  # cloud metadata
        "fe80::1",
        "fc00::1",
        "100.64.0.1",  # shared (carrier-grade NAT)
        "0.0.0.0",
        "::",
        "224.0.0.1",
        "ff02::1",
        "240.0.0.1",
        "255.255.255.255",
        "192.0.2.1",  # documentation
        "::ffff:127.0.0.1",  # IPv4 inside IPv6
        "::ffff:10.0.0.1",
        "2002:7f00:1::1",  # 6to4 of 127.0.0.1
        "64:ff9b::a00:1",  # NAT64 of 10.0.0.1
    ],
)
def test_addresses_that_are_not_public(address):
    assert not sending.is_public_address(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111"])
def test_public_addresses(address):
    assert sending.is_public_address(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    ("host", "address"),
    [
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("134744072", "8.8.8.8"),
        ("example.com", None),
        ("1.example", None),
        ("123.example.com", None),
    ],
)
def test_numeric_hosts_are_read_as_a_connection_reads_them(host, address):
    parsed = sending.parse_address(host)
    assert (str(parsed) if parsed else None) == address


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/hooks",
        "http://localhost/hooks",
        "https://api.localhost/hooks",
        "http://[::1]/hooks",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.5/",
        "http://[::ffff:127.0.0.1]/",
        "http://0.0.0.0:8000/",
        # The IPv4 forms a connection reads as loopback without asking any DNS: refused
        # when added, not only at every delivery.
        "http://2130706433/",
        "http://0x7f000001/",
        "http://127.1/",
        "http://0177.0.0.1/",
        "http://0x7f.1/",
        "http://10.1/",
    ],
)
def test_an_address_that_is_not_public_is_refused_when_added(cast, url):
    with pytest.raises(WebhookError) as refused:
        add_endpoint(cast.owner, url)
    assert "url" in refused.value.message_dict


def test_a_name_resolving_to_loopback_is_refused_when_delivering(
    cast, receiver, django_capture_on_commit_callbacks
):
    """localhost resolves to 127.0.0.1 (and ::1): an endpoint written with it (added while
    private addresses were allowed, say) gets nothing; the attempt fails saying why."""
    stored_endpoint(cast.company, f"http://localhost:{receiver.port}/hooks")
    with django_capture_on_commit_callbacks(execute=True):
        _emit(cast.company)
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "pending" and delivery.response_status is None
    assert delivery.last_error.startswith("refused: localhost resolves to ")
    assert "not a public address" in delivery.last_error
    assert receiver.received == []


def test_one_private_address_among_public_ones_refuses_the_delivery(
    cast, receiver, monkeypatch, django_capture_on_commit_callbacks
):
    _fake_dns(monkeypatch, {"erp.partner.example": ["93.184.216.34", "127.0.0.1"]})
    add_endpoint(cast.owner, f"http://erp.partner.example:{receiver.port}/hooks")
    with django_capture_on_commit_callbacks(execute=True):
        _emit(cast.company)
    delivery = WebhookDelivery.objects.get()
    assert "erp.partner.example resolves to 127.0.0.1" in delivery.last_error
    assert receiver.received == []


def test_a_name_that_resolves_to_loopback_only_after_it_was_added_is_refused(
    cast, receiver, monkeypatch, django_capture_on_commit_callbacks
):
    """DNS rebinding: public when the company added it, loopback when it is delivered."""
    _fake_dns(monkeypatch, {"rebind.partner.example": ["93.184.216.34"]})
    add_endpoint(cast.owner, f"http://rebind.partner.example:{receiver.port}/hooks")
    asked = _fake_dns(monkeypatch, {"rebind.partner.example": ["127.0.0.1"]})
    with django_capture_on_commit_callbacks(execute=True):
        _emit(cast.company)
    assert asked == ["rebind.partner.example"]
    assert "not a public address" in WebhookDelivery.objects.get().last_error
    assert receiver.received == []


def test_the_connection_goes_to_the_checked_address(
    cast, receiver, monkeypatch, settings, django_capture_on_commit_callbacks
):
    """The name is resolved once, by the guard; the HTTP client is handed the checked
    address (a name that exists nowhere else still reaches the receiver), and the request
    still names the host."""
    settings.TRADEPOST_WEBHOOKS_ALLOW_PRIVATE = True
    asked = _fake_dns(monkeypatch, {"erp.partner.test": ["127.0.0.1"]})
    add_endpoint(cast.owner, f"http://erp.partner.test:{receiver.port}/hooks")
    with django_capture_on_commit_callbacks(execute=True):
        _emit(cast.company)
    assert asked == ["erp.partner.test"]
    [got] = receiver.received
    assert got.headers["host"] == f"erp.partner.test:{receiver.port}"
    assert WebhookDelivery.objects.get().status == "succeeded"


def test_the_explicit_allowance_lets_the_tests_deliver_to_loopback(
    cast, receiver, settings, django_capture_on_commit_callbacks
):
    settings.TRADEPOST_WEBHOOKS_ALLOW_PRIVATE = True
    add_endpoint(cast.owner, receiver.url)
    with django_capture_on_commit_callbacks(execute=True):
        _emit(cast.company)
    assert len(receiver.received) == 1


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("", "required"),
        ("https://erp.example.com/" + "a" * 2000, "at most 2000"),
        ("ftp://erp.example.com/hooks", "https://"),
        ("javascript:alert(1)", "https://"),
        ("file:///etc/passwd", "https://"),
        ("gopher://erp.example.com:70/", "https://"),
        ("https://erp.example.com/\x00hooks", "without spaces"),
        ("https://erp.example.com/<script>alert(1)</script>", "without spaces"),
        ('https://erp.example.com/"onmouseover="x', "without spaces"),
        ("https://erp.example.com/ hooks", "without spaces"),
        ("https://user:secret@erp.example.com/hooks", "user name"),
        ("https://erp.example.com/hooks#part", "#"),
        ("https:///hooks", "https://"),
        ("https://erp.example.com:99999/", "without spaces"),
        ("https://[::1/", "without spaces"),
        ("https://erp.example.com/\ud800", "without spaces"),
        (12345, "without spaces"),
    ],
)
def test_bad_addresses_are_refused_with_a_reason(url, why):
    with pytest.raises(Exception) as refused:
        clean_endpoint_url(url, allow_private=False)
    assert why in " ".join(refused.value.messages)


def test_a_good_address_is_kept_as_written():
    url = "https://erp.example.com:8443/tradepost/hooks?company=42"
    assert clean_endpoint_url(f"  {url} ", allow_private=False) == url
    assert clean_endpoint_url("https://供应商.example/hooks", allow_private=False)
