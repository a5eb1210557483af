"""The apps register where the search engine reads its records (`search.sources`)."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from tradepost.catalog import search as catalog_search
from tradepost.companies import search as companies_search
from tradepost.search import sources
from tradepost.sourcing import search as sourcing_search


def test_each_app_registers_its_source_when_django_starts():
    assert sources.companies() is companies_search.SOURCE
    assert sources.products() is catalog_search.SOURCE
    assert sources.requests() is sourcing_search.SOURCE


def test_a_missing_source_fails_loudly_rather_than_indexing_nothing(monkeypatch):
    monkeypatch.setattr(sources, "_registry", sources._Registry())
    with pytest.raises(ImproperlyConfigured, match="products"):
        sources.products()
    # Response rates are optional: without them documents carry none.
    assert sources.response_rates([1, 2]) == {}
