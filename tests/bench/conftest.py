"""The benchmark smoke test builds its index in its own folder."""

from __future__ import annotations

import pytest

from tests.demo.conftest import category_tree  # noqa: F401  (the shipped or stand-in tree)
from tradepost.search import index, selectors


@pytest.fixture(autouse=True)
def _own_index(settings, tmp_path):
    settings.TRADEPOST_INDEX_DIR = tmp_path / "index"
    index.forget_indexes()
    selectors.clear_caches()
    yield
    index.forget_indexes()
    selectors.clear_caches()
