"""`kill -9` in the middle of an import (a real process, `tradepost import-products`): no
product is left half written (each is written whole, with its translation and attributes, in
the chunk that holds the checkpoint), the job's checkpoint is what the database holds, and
running the same command again completes the import; resuming the killed job then changes
nothing."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ROWS = 3_000  # six chunks of 500 (`running.WRITE_CHUNK`): killed after the first

SETUP = """
import django, sys
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
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


def _env(home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tradepost.config.test_settings",
        "TRADEPOST_HOME": str(home),
        "DATABASE_URL": f"sqlite:///{home / 'tradepost.sqlite3'}",
        "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'src'}",
    }


def _python(code: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _command(env: dict[str, str], *args: str) -> list[str]:
    return [sys.executable, "-m", "tradepost.cli", "import-products", *args]


def _products(database: Path) -> int:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30) as connection:
        try:
            return connection.execute("SELECT count(*) FROM catalog_product").fetchone()[0]
        except sqlite3.OperationalError:
            return 0


def _state(env: dict[str, str]) -> dict:
    done = _python(CHECK, env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_kill_9_mid_import_leaves_no_partial_product_and_a_rerun_completes_it(tmp_path):
    env = _env(tmp_path)
    sheet = tmp_path / "catalogue.csv"
    setup = _python(SETUP.format(rows=ROWS), env, str(sheet))
    assert setup.returncode == 0, setup.stderr
    arguments = [str(sheet), "--company", "killed-import-works", "--mode", "valid", "--no-progress"]

    importing = subprocess.Popen(
        _command(env, *arguments),
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    database = tmp_path / "tradepost.sqlite3"
    deadline = time.monotonic() + 240
    while _products(database) < 250:  # a chunk committed, most of the file to go
        assert importing.poll() is None, importing.stderr.read() if importing.stderr else ""
        assert time.monotonic() < deadline, "the import made no progress"
        time.sleep(0.05)
    importing.send_signal(signal.SIGKILL)
    importing.wait(timeout=30)
    assert importing.returncode == -signal.SIGKILL

    after_kill = _state(env)
    (killed,) = after_kill["jobs"]
    assert killed["status"] == "importing"
    assert 0 < after_kill["products"] < ROWS
    # Every product written is whole, and the checkpoint is exactly what was committed.
    assert after_kill["whole"] == after_kill["products"] == after_kill["skus"]
    assert killed["rows_done"] == killed["created"] == after_kill["products"]

    rerun = subprocess.run(
        _command(env, *arguments), cwd=REPO, env=env, capture_output=True, text=True, timeout=600
    )
    assert rerun.returncode == 0, rerun.stderr
    completed = _state(env)
    assert completed["products"] == completed["whole"] == completed["skus"] == ROWS
    second = completed["jobs"][1]
    assert second["status"] == "finished"
    assert (second["unchanged"], second["new"]) == (
        after_kill["products"],
        ROWS - after_kill["products"],
    )

    # The killed job resumed from its checkpoint finds every remaining row there already.
    resumed = subprocess.run(
        _command(env, "--resume", str(killed["id"]), "--no-progress"),
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert resumed.returncode == 0, resumed.stderr
    final = _state(env)
    assert final["products"] == ROWS
    assert final["jobs"][0]["status"] == "finished"
    assert final["jobs"][0]["created"] == after_kill["products"]
