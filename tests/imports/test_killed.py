"""`kill -9` in the middle of an import (a real process, `tradepost import-products`): no
product is left half written (each is written whole, with its translation and attributes, in
the chunk that holds the checkpoint), the job's checkpoint is what the database holds, and
running the same command again completes the import; resuming the killed job then changes
nothing."""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path

import pytest

from tests.processes import kill_9_once, process_env, python_json, run_cli, run_python, start_cli

ROWS = 3_000  # six chunks of 500 (`running.WRITE_CHUNK`): killed after the first

SETUP = """
import django, sys
django.setup()
from tests.factories.companies import make_trader
from tests.factories.imports import csv_bytes, product_rows, table
owner, company = make_trader(legal_name="Killed Import Works", slug="killed-import-works")
rows = product_rows({rows}, title_zh_hans="不锈钢保温杯", status="draft")
open(sys.argv[1], "wb").write(csv_bytes(table(rows)))
"""

CHECK = """
import django, json
django.setup()
from tradepost.catalog.models import Product
from tradepost.imports.models import ImportJob
products = Product.objects.filter(company__slug="killed-import-works")
whole = products.filter(translations__language="zh-hans").exclude(attributes=[]).distinct()
jobs = [
    {"id": job.pk, "status": job.status, "rows_done": job.rows_done,
     "created": job.created_count, "unchanged": job.unchanged_rows, "new": job.new_rows}
    for job in ImportJob.objects.order_by("id")
]
print(json.dumps({
    "products": products.count(),
    "whole": whole.count(),
    "skus": products.values("sku").distinct().count(),
    "jobs": jobs,
}))
"""


def _products(database: Path) -> int:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30) as connection:
        try:
            return connection.execute("SELECT count(*) FROM catalog_product").fetchone()[0]
        except sqlite3.OperationalError:
            return 0


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_kill_9_mid_import_leaves_no_partial_product_and_a_rerun_completes_it(process_home):
    env = process_env(process_home)
    sheet = process_home / "catalogue.csv"
    setup = run_python(SETUP.format(rows=ROWS), env, str(sheet))
    assert setup.returncode == 0, setup.stderr
    arguments = [str(sheet), "--company", "killed-import-works", "--mode", "valid", "--no-progress"]

    importing = start_cli(env, "import-products", *arguments)
    database = process_home / "tradepost.sqlite3"
    # Killed once a chunk is committed, with most of the file to go.
    kill_9_once(
        importing,
        lambda: _products(database) >= 250,
        within=240,
        what="the import made no progress",
    )

    after_kill = python_json(CHECK, env)
    (killed,) = after_kill["jobs"]
    assert killed["status"] == "importing"
    assert 0 < after_kill["products"] < ROWS
    # Every product written is whole, and the checkpoint is exactly what was committed.
    assert after_kill["whole"] == after_kill["products"] == after_kill["skus"]
    assert killed["rows_done"] == killed["created"] == after_kill["products"]

    rerun = run_cli(env, "import-products", *arguments)
    assert rerun.returncode == 0, rerun.stderr
    completed = python_json(CHECK, env)
    assert completed["products"] == completed["whole"] == completed["skus"] == ROWS
    second = completed["jobs"][1]
    assert second["status"] == "finished"
    assert (second["unchanged"], second["new"]) == (
        after_kill["products"],
        ROWS - after_kill["products"],
    )

    # The killed job resumed from its checkpoint finds every remaining row there already.
    resumed = run_cli(env, "import-products", "--resume", str(killed["id"]), "--no-progress")
    assert resumed.returncode == 0, resumed.stderr
    final = python_json(CHECK, env)
    assert final["products"] == ROWS
    assert final["jobs"][0]["status"] == "finished"
    assert final["jobs"][0]["created"] == after_kill["products"]
