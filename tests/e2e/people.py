"""What browser journeys do for a person: sign in through the real login form, fill in a
quotation form."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from tests.factories.accounts import PASSWORD


def log_in(page, base: str, user, language: str = "en") -> None:
    """Signs `user` in on `page` through the login form of the `language` site."""
    page.goto(f"{base}/{language}/accounts/login/")
    page.fill("#id_username", user.email)
    page.fill("#id_password", PASSWORD)
    page.click("main form.stacked button[type=submit]")
    page.wait_for_load_state()
    assert "/accounts/login/" not in page.url, page.inner_text("main")


def fill_quote(
    page, *, unit_price: str, currency: str, moq: str, lead_time: str, place: str
) -> None:
    """Fills in the quotation form open on `page` (FOB `place`, valid for 30 days); the
    caller submits it."""
    page.fill("#id_unit_price", unit_price)
    page.select_option("#id_currency", currency)
    page.fill("#id_moq", moq)
    page.fill("#id_lead_time_days", lead_time)
    page.select_option("#id_incoterm", "FOB")
    page.fill("#id_named_place", place)
    page.fill("#id_valid_until", (timezone.localdate() + timedelta(days=30)).isoformat())
