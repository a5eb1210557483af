"""Every search test gets its own empty index folder."""

from __future__ import annotations

import pytest

from tradepost.search import index, selectors


@pytest.fixture(autouse=True)
def _search_index_dir(settings, tmp_path):
    settings.TRADEPOST_INDEX_DIR = tmp_path / "index"
    index.forget_indexes()
    selectors.clear_caches()
    yield settings.TRADEPOST_INDEX_DIR
    index.forget_indexes()
    selectors.clear_caches()
