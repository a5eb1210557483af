"""Catalogue import: rows per second and peak memory, beside a raw bulk insert of the same rows.

    .venv/bin/python -m bench.imports [--rows 50000] [--home /some/scratch/folder]
                                      [--database-url postgres://…]

In a scratch data folder (a fresh SQLite database unless `--database-url`, migrated), one
supplier gets a catalogue of `--rows` products written as a CSV file (UTF-8, the template's
columns, drafts without pictures or translations; titles from the real Taobao titles of
../shared/data when present, numbered phrases otherwise, so that no two are alike). Then, each
in a process of its own (so that each peak memory is its own):

- **raw**: the same rows, as the import would store them, written by `bulk_create` in batches
  of 1,000 in one transaction, to a second company: the least any import of these rows
  costs, with no validation, no per-row permission check and no search-index outbox (and the
  cycle collector set aside as the import's passes set it, `core.garbage`);
- **import**: `tradepost.imports.services.import_upload` (the check: parse, encoding, every
  row through `catalog.services.product_draft_check`) then `import_confirm` (the write: each
  chunk of 500 planned again, its new rows written as the plan checked them through
  `catalog.services.products_create_many`, in bulk, with the checkpoint in the same
  transaction), as `tradepost import-products` runs them;
- **again**: the same file uploaded again (every row found by its SKU and unchanged).

Prints rows/s for each and for the import's two passes, the import's rate against raw, and
each process's peak resident memory (`ru_maxrss`); writes `results/imports-<time>.json` and
`.md`. The goals (issue #15): at least half the raw rate, at least 2,000 rows/s, at most 300 MB.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"
REPO = Path(__file__).resolve().parents[1]
SHARED_TITLES = REPO.parent / "shared" / "data" / "taobao_title_ner" / "train.txt"
COLUMNS = [
    "SKU",
    "Title",
    "Listing language",
    "Category",
    "Description",
    "Keywords",
    "Attributes",
    "Minimum order quantity",
    "Unit",
    "Lowest unit price",
    "Highest unit price",
    "Currency",
    "Incoterms",
    "Payment terms",
    "Lead time (days)",
    "Country of origin",
    "Status",
]


def _setup_django(home: str, database_url: str | None) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "tradepost.config.settings"
    os.environ["TRADEPOST_HOME"] = home
    os.environ["TRADEPOST_TASKS_BACKEND"] = "immediate"
    os.environ["TRADEPOST_PAGE_CACHE_SECONDS"] = "0"
    if database_url:
        os.environ["DATABASE_URL"] = database_url
    else:
        os.environ["DATABASE_URL"] = f"sqlite:///{Path(home) / 'bench.sqlite3'}"
    sys.path[:0] = [str(REPO), str(REPO / "src")]
    from tradepost.config.home import prepare_home

    prepare_home()
    import django

    django.setup()


def _titles(count: int) -> list[str]:
    titles: list[str] = []
    if SHARED_TITLES.exists():
        characters: list[str] = []
        with SHARED_TITLES.open(encoding="utf-8") as lines:
            for line in lines:
                if not line.strip():
                    if characters:
                        titles.append("".join(characters)[:180])
                        characters = []
                    continue
                characters.append(line.split(" ")[0] or " ")
    words = ["flask", "mug", "kettle", "lamp", "chair", "bag", "bottle", "board", "pot", "mat"]
    seen = set()
    unique = []
    for title in titles:
        if title not in seen:
            seen.add(title)
            unique.append(title)
    n = 0
    while len(unique) < count:
        unique.append(f"{words[n % 10]} {words[(n // 10) % 10]} model {n}")
        n += 1
    return [f"{title} #{n}" for n, title in enumerate(unique[:count])]


def _rows(count: int, leaves: list[str]) -> list[list[Any]]:
    rows = []
    for n, title in enumerate(_titles(count)):
        rows.append(
            [
                f"B-{n:06d}",
                title,
                "zh-hans" if not title.isascii() else "en",
                leaves[n % len(leaves)],
                f"<p>{title}，品质保证。</p>",
                "批发, wholesale",
                "Material: steel\nColour: black",
                str(100 + n % 900),
                "pieces",
                f"{1 + n % 50}.50",
                f"{2 + n % 50}.80",
                "USD",
                "FOB, CIF",
                "tt",
                str(n % 60),
                "CN",
                "draft",
            ]
        )
    return rows


def _prepare(home: str, database_url: str | None, count: int) -> dict[str, Any]:
    _setup_django(home, database_url)
    from django.core.management import call_command

    from tradepost.accounts.models import User
    from tradepost.catalog.models import Category
    from tradepost.companies.models import Company, Membership, Role

    call_command("migrate", verbosity=0)
    companies = []
    for name, email in (
        ("Bench Import Works", "bench-importer@example.com"),
        ("Bench Raw Works", "bench-raw@example.com"),
    ):
        owner = User.objects.create_user(email=email, password="x" * 12)
        owner.email_verified_at = datetime.now(UTC)
        owner.save()
        company = Company.objects.create(
            legal_name=name, english_name=name, slug=name.lower().replace(" ", "-"), country="CN"
        )
        Membership.objects.create(user=owner, company=company, role=Role.OWNER)
        companies.append(company.pk)
    leaves = list(Category.objects.filter(is_leaf=True).values_list("slug", flat=True)[:200])
    sheet = Path(home) / "catalogue.csv"
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(COLUMNS)
    writer.writerows(_rows(count, leaves))
    sheet.write_text(buffer.getvalue(), encoding="utf-8")
    return {"sheet": str(sheet), "companies": companies, "bytes": sheet.stat().st_size}


def _peak_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _raw(home: str, database_url: str | None, prepared: dict[str, Any], out: Any) -> None:
    _setup_django(home, database_url)
    from decimal import Decimal

    from django.db import transaction

    from tradepost.catalog.models import Category, Product
    from tradepost.companies.models import Company
    from tradepost.core.garbage import long_lived_set_aside

    company = Company.objects.get(pk=prepared["companies"][1])
    by_slug = {category.slug: category for category in Category.objects.filter(is_leaf=True)}
    started = time.perf_counter()
    # With the collector set aside as the import's passes have it (`core.garbage`).
    with long_lived_set_aside(), open(prepared["sheet"], encoding="utf-8", newline="") as sheet:
        reader = csv.reader(sheet)
        next(reader)
        batch: list[Product] = []
        count = 0
        with transaction.atomic():
            for row in reader:
                batch.append(
                    Product(
                        company=company,
                        sku=row[0],
                        title=row[1],
                        slug="product",
                        original_language=row[2],
                        category=by_slug[row[3]],
                        description=row[4],
                        keywords=row[5],
                        attributes=[
                            {"name": name.strip(), "value": value.strip()}
                            for name, value in (line.split(":", 1) for line in row[6].splitlines())
                        ],
                        moq=Decimal(row[7]),
                        moq_unit=row[8],
                        price_min=Decimal(row[9]),
                        price_max=Decimal(row[10]),
                        currency=row[11],
                        incoterms=["FOB", "CIF"],
                        payment_terms=["tt"],
                        lead_time_days=int(row[14]),
                        origin_country=row[15],
                    )
                )
                if len(batch) == 1000:
                    Product.objects.bulk_create(batch)
                    count += len(batch)
                    batch = []
            Product.objects.bulk_create(batch)
            count += len(batch)
    seconds = time.perf_counter() - started
    out.put({"rows": count, "seconds": round(seconds, 2), "peak_mb": _peak_mb()})


def _import(home: str, database_url: str | None, prepared: dict[str, Any], out: Any) -> None:
    _setup_django(home, database_url)
    from django.core.files import File

    from tradepost.accounts.models import User
    from tradepost.companies.models import Company
    from tradepost.imports import services

    company = Company.objects.get(pk=prepared["companies"][0])
    owner = User.objects.get(email="bench-importer@example.com")
    result: dict[str, Any] = {}
    for label in ("import", "again"):
        started = time.perf_counter()
        with open(prepared["sheet"], "rb") as sheet:
            job = services.import_upload(
                actor=owner,
                company=company,
                catalogue=File(sheet, name="catalogue.csv"),
                mode="valid",
                inline=True,
            )
        checked = time.perf_counter()
        job = services.import_confirm(actor=owner, job=job, inline=True)
        done = time.perf_counter()
        result[label] = {
            "rows": job.rows_total,
            "status": job.status,
            "new": job.new_rows,
            "unchanged": job.unchanged_rows,
            "rejected": job.rejected_rows,
            "created": job.created_count,
            "check_seconds": round(checked - started, 2),
            "write_seconds": round(done - checked, 2),
            "seconds": round(done - started, 2),
            "peak_mb": _peak_mb(),
        }
    out.put(result)


class _Channel:
    """What a phase hands back: printed as the last line of the phase's output."""

    def put(self, value: Any) -> None:
        print(json.dumps(value), flush=True)


PHASES = {"prepare": "_prepare_entry", "raw": "_raw", "import": "_import"}


def _in_process(phase: str, home: str, database_url: str | None, extra: Any) -> Any:
    """One phase in a fresh Python process (its peak memory its own); its result."""
    command = [sys.executable, "-m", "bench.imports", "--phase", phase, "--home", home]
    command += ["--phase-input", json.dumps(extra)]
    if database_url:
        command += ["--database-url", database_url]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the {phase} phase failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(rows: int, home: str, database_url: str | None) -> dict[str, Any]:
    prepared = _in_process("prepare", home, database_url, rows)
    raw = _in_process("raw", home, database_url, prepared)
    imported = _in_process("import", home, database_url, prepared)
    rate = {
        "raw": rows / raw["seconds"],
        "import": rows / imported["import"]["seconds"],
        "import_check": rows / imported["import"]["check_seconds"],
        "import_write": rows / imported["import"]["write_seconds"],
        "again": rows / imported["again"]["seconds"],
    }
    return {
        "rows": rows,
        "file_bytes": prepared["bytes"],
        "database": "postgresql" if database_url else "sqlite",
        "cpus": os.cpu_count(),
        "load_average": [round(value, 2) for value in os.getloadavg()],
        "raw": raw,
        "import": imported["import"],
        "again": imported["again"],
        "rows_per_second": {name: round(value) for name, value in rate.items()},
        "import_vs_raw": round(rate["import"] / rate["raw"], 4),
        "goals": {
            "half_of_raw": rate["import"] >= 0.5 * rate["raw"],
            "2000_rows_per_second": rate["import"] >= 2000,
            "300_mb": imported["import"]["peak_mb"] <= 300,
        },
    }


def _prepare_entry(home: str, database_url: str | None, rows: int, out: Any) -> None:
    out.put(_prepare(home, database_url, rows))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--home", help="A scratch data folder (default: a new temporary one)")
    parser.add_argument("--database-url", help="PostgreSQL instead of a fresh SQLite file")
    parser.add_argument("--phase", choices=PHASES, help=argparse.SUPPRESS)
    parser.add_argument("--phase-input", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.phase:
        phase = globals()[PHASES[options.phase]]
        phase(options.home, options.database_url, json.loads(options.phase_input), _Channel())
        return
    home = options.home or tempfile.mkdtemp(prefix="bench-imports-")
    result = run(options.rows, home, options.database_url)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"imports-{stamp}.json").write_text(json.dumps(result, indent=2) + "\n")
    rates = result["rows_per_second"]
    lines = [
        f"# Catalogue import ({stamp})",
        "",
        f"{result['rows']:,} rows ({result['file_bytes'] / 1e6:.1f} MB of CSV), "
        f"{result['database']}, {result['cpus']} CPUs, load average {result['load_average']}.",
        "",
        "| pass | seconds | rows/s | peak MB |",
        "|---|---|---|---|",
        f"| raw bulk insert | {result['raw']['seconds']} | {rates['raw']:,} | "
        f"{result['raw']['peak_mb']} |",
        f"| import (check + write) | {result['import']['seconds']} | {rates['import']:,} | "
        f"{result['import']['peak_mb']} |",
        f"| — check (preview) | {result['import']['check_seconds']} "
        f"| {rates['import_check']:,} | |",
        f"| — write (batches) | {result['import']['write_seconds']} "
        f"| {rates['import_write']:,} | |",
        f"| the same file again | {result['again']['seconds']} | {rates['again']:,} | "
        f"{result['again']['peak_mb']} |",
        "",
        f"Import / raw: {result['import_vs_raw']:.3f}. Goals: "
        + ", ".join(f"{name} {'met' if met else 'missed'}" for name, met in result["goals"].items())
        + ".",
    ]
    (RESULTS / f"imports-{stamp}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
