"""What the page tests do as a person with Django's test client: sign in, name a page."""

from __future__ import annotations

from django.urls import reverse
from django.utils import translation

from tests.factories.accounts import PASSWORD


def log_in(client, user):
    """Signs `user` in with their password (the login checks run) and returns the client."""
    assert client.login(email=user.email, password=PASSWORD)
    return client


def page_url(name: str, language: str = "en", **kwargs) -> str:
    """The address of the page `name` on the `language` site."""
    with translation.override(language):
        return reverse(name, kwargs=kwargs or None)
