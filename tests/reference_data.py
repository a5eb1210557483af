"""The data the migrations load (the category tree, HS codes, reference exchange rates and the
default plans), loaded again after a transactional test's flush emptied every table.

Django sends `post_migrate` after such a flush; the suite connects `restore_reference_data` to
it (conftest.py), so a test never depends on whether a transactional test ran before it.
Loading is idempotent. No test uses `serialized_rollback`: after one, Django sends no
`post_migrate` and leaves the tables empty for the tests after it (and its set-up deserializes
the whole migrated database, object by object)."""

from __future__ import annotations

from typing import Any


def restore_reference_data(**_signal: Any) -> None:
    from tradepost.catalog.reference_data import load_reference_data
    from tradepost.membership.defaults import install_default_plans
    from tradepost.membership.models import Plan
    from tradepost.money.models import ExchangeRate
    from tradepost.money.rates import forget_rates
    from tradepost.money.reference import seed_rates

    load_reference_data()
    seed_rates(ExchangeRate)
    forget_rates()
    install_default_plans(Plan)
