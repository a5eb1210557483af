"""Each test starts without the list compiled by an earlier one (the version check would
notice a change anyway; this keeps a failure in one test from leaking into the next)."""

from __future__ import annotations

import pytest

from tradepost.screening.selectors import forget_matchers


@pytest.fixture(autouse=True)
def _fresh_matchers():
    forget_matchers()
    yield
    forget_matchers()
