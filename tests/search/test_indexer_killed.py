"""The indexer process is killed (SIGKILL) between a tantivy commit and the position write;
a fresh indexer converges the index to the database, nothing lost or doubled."""

from __future__ import annotations

import json
import signal
import subprocess

import pytest

from tests.processes import process_env, run_python

SETUP = """
import django
django.setup()
from django.db import transaction
from tests.factories.catalog import make_product
from tradepost.catalog.models import ProductStatus
from tradepost.search.indexer import apply_outbox
from tradepost.search.outbox import record_change
apply_outbox()  # the (empty) index exists before the catalogue is written
with transaction.atomic():
    products = [make_product(title=f"Enamel camping mug {n}") for n in range(30)]
    for product in products:
        record_change(kind="product", object_id=product.pk)
        record_change(kind="company", object_id=product.company_id)
"""

CRASH = """
import os, signal, django
django.setup()
from tradepost.search.indexer import apply_outbox
from tradepost.search.index import read_state
commits = []
def after_commit():
    commits.append(1)
    if len(commits) == 2:
        os.kill(os.getpid(), signal.SIGKILL)
apply_outbox(batch_size=10, after_commit=after_commit)
"""

CHANGE_AND_RECOVER = """
import json, django
django.setup()
from django.db import transaction
from tradepost.catalog.models import Product, ProductStatus
from tradepost.search.check import check_index
from tradepost.search.index import read_state
from tradepost.search.indexer import apply_outbox
from tradepost.search.outbox import record_change
from tradepost.search.selectors import search_products
position_after_crash = read_state().position
with transaction.atomic():
    hidden = Product.objects.order_by("id").first()
    hidden.status = ProductStatus.HIDDEN
    hidden.save()
    record_change(kind="product", object_id=hidden.pk)
apply_outbox()
report = check_index()
print(json.dumps({
    "position_after_crash": position_after_crash,
    "ok": report.ok,
    "indexed": report.indexed_products,
    "published": report.published_products,
    "found": search_products(query="enamel mug", language="en", per_page=100).total,
}))
"""


def run(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run_python(code, env, timeout=180)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_between_commit_and_position_write_converges(process_home):
    env = process_env(process_home)
    setup = run(SETUP, env)
    assert setup.returncode == 0, setup.stderr

    crash = run(CRASH, env)
    assert crash.returncode == -signal.SIGKILL, crash.stderr

    recover = run(CHANGE_AND_RECOVER, env)
    assert recover.returncode == 0, recover.stderr
    result = json.loads(recover.stdout.strip().splitlines()[-1])
    # Killed right after committing the second batch of ten rows: the recorded position is
    # the end of the first batch, and the second batch is replayed.
    assert result["position_after_crash"] == 10
    assert result == {
        "position_after_crash": result["position_after_crash"],
        "ok": True,
        "indexed": 29,
        "published": 29,
        "found": 29,
    }
