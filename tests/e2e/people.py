"""What every browser journey does for a person: sign in through the real login form."""

from __future__ import annotations

from tests.factories.accounts import PASSWORD


def log_in(page, base: str, user, language: str = "en") -> None:
    """Signs `user` in on `page` through the login form of the `language` site."""
    page.goto(f"{base}/{language}/accounts/login/")
    page.fill("#id_username", user.email)
    page.fill("#id_password", PASSWORD)
    page.click("main form.stacked button[type=submit]")
    page.wait_for_load_state()
    assert "/accounts/login/" not in page.url, page.inner_text("main")
