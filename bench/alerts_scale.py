"""Trade alerts at scale (`tradepost bench alerts --scale`, docs/adr/0037).

Saved searches made from real queries (`multi_cpr_ecom/train.query.txt`, simplified Chinese,
also converted to traditional; `queries/wands_query.csv` and the English queries of the
judged pairs), one person each, a third with a filter (country, price or verified), against
newly published real titles (`traditional_titles/test_tcn.csv` and the Taobao titles of
`relevance/zh_query_title/`), published a batch at a time through the outbox and the indexer.
Reported, beside references run in the same process:

- percolation time per new listing (its tokens built as the indexer builds them, its
  candidate alerts looked up, the clear-match rule decided, "shown now" asked of the index),
  p50 and p95; the registry's load time; and the brute-force reference: every saved search
  run as the results page runs it against the index of the new listings (timed on a sample,
  scaled to all saved searches), per listing;
- agreement on a sample of alerts: the listings percolation sent, against the clear-match
  rule stated on the index (`alerting.clearly_matches`) run at the end;
- the digest build for the recipients with matches: time and the process's peak resident
  memory while it runs (emails rendered and handed to a backend that drops them).
"""

from __future__ import annotations

import csv
import random
import statistics
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PUBLISH_BATCH = 500
FILTERS: list[dict[str, list[str]]] = [
    {"country": ["CN"]},
    {"country": ["TW"]},
    {"price_max": ["50"]},
    {"verified": ["1"]},
]


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def load_queries(data_dir: Path, count: int) -> list[tuple[str, str]]:
    """(query, language) for `count` saved searches: a third simplified, a third traditional,
    a third English (the English pool is small: people save the same searches)."""
    from tradepost.core.chinese_scripts import convert_script

    chinese = []
    with (data_dir / "multi_cpr_ecom" / "train.query.txt").open(encoding="utf-8") as handle:
        for line in handle:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 2 and parts[1].strip():
                chinese.append(parts[1].strip())
    english = []
    with (data_dir / "queries" / "wands_query.csv").open(encoding="utf-8") as handle:
        english.extend(row["query"] for row in csv.DictReader(handle, delimiter="\t"))
    pairs = data_dir / "relevance" / "en_query_zh_hant_title" / "pairs.dev.tsv"
    with pairs.open(encoding="utf-8") as handle:
        english.extend(line.split("\t")[0] for line in list(handle)[1:])
    english = [q for q in english if q.strip()]
    out = []
    for n in range(count):
        if n % 3 == 0:
            out.append((chinese[n % len(chinese)], "zh-hans"))
        elif n % 3 == 1:
            source = chinese[(n + len(chinese) // 2) % len(chinese)]
            out.append((convert_script(source, written_in="zh-hans", reader="zh-hant"), "zh-hant"))
        else:
            out.append((english[n % len(english)], "en"))
    return out


def load_titles(data_dir: Path, count: int) -> list[tuple[str, str]]:
    """(title, listing language): traditional Shopee titles, then Taobao titles."""
    titles = []
    with (data_dir / "traditional_titles" / "test_tcn.csv").open(
        encoding="utf-8-sig", newline=""
    ) as handle:
        titles.extend((row["text"], "zh-hant") for row in csv.DictReader(handle) if row["text"])
    with (data_dir / "relevance" / "zh_query_title" / "titles.tsv").open(encoding="utf-8") as h:
        titles.extend((line.rstrip("\n").split("\t")[1], "zh-hans") for line in list(h)[1:])
    random.Random(7).shuffle(titles)
    return titles[:count]


class PeakMemory:
    """The process's peak resident memory while running (sampled every 50 ms)."""

    def __init__(self) -> None:
        self.peak = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)

    @staticmethod
    def rss() -> int:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    def _watch(self) -> None:
        while not self.stop.is_set():
            self.peak = max(self.peak, self.rss())
            self.stop.wait(0.05)

    def __enter__(self) -> PeakMemory:
        self.before = self.rss()
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop.set()
        self.thread.join()
        self.peak = max(self.peak, self.rss())


def run(
    data_dir: Path,
    *,
    saved: int,
    titles: int,
    recipients: int,
    sample: int = 2000,
    say: Callable[[str], None] = lambda _m: None,
) -> dict[str, Any]:
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.test.utils import override_settings
    from django.utils import timezone

    from tradepost.alerts.digests import digests_send_due
    from tradepost.alerts.models import AlertMatch, PercolationCursor, SavedSearch
    from tradepost.alerts.percolation import document_texts, forget_percolator, percolator
    from tradepost.catalog.models import Category, Product, ProductStatus
    from tradepost.companies.models import Company, Membership, Role
    from tradepost.search.alerting import clearly_matches, compile_saved, compile_shown
    from tradepost.search.engine import combine
    from tradepost.search.index import snapshot
    from tradepost.search.indexer import apply_outbox, rebuild_now
    from tradepost.search.models import IndexOutbox
    from tradepost.search.outbox import record_changes
    from tradepost.search.querying import RELAXED
    from tradepost.search.sketches import sketch_of

    if Product.objects.filter(status=ProductStatus.PUBLISHED).exists():
        raise RuntimeError("Measure in an empty TRADEPOST_HOME (no published products).")
    category = Category.objects.filter(is_leaf=True).order_by("path").first()
    if category is None:
        raise RuntimeError("No category: run migrate first.")
    result: dict[str, Any] = {"saved": saved, "titles": titles}

    say(f"making {saved:,} people with a saved search each…")
    began = time.perf_counter()
    buyer = Company.objects.create(
        slug="tpbench-alerts-scale", legal_name="Tpbenchscale", country="DE"
    )
    User = get_user_model()
    users = User.objects.bulk_create(
        [User(email=f"s{n}@bench.invalid", password="!") for n in range(saved)], batch_size=5000
    )
    Membership.objects.bulk_create(
        [Membership(user=u, company=buyer, role=Role.MEMBER) for u in users], batch_size=5000
    )
    queries = load_queries(data_dir, saved)
    sketches: dict[str, dict[str, Any]] = {}
    rows = []
    for n, ((query, language), user) in enumerate(zip(queries, users, strict=True)):
        sketch = sketches.get(query)
        if sketch is None:
            sketch = sketches[query] = sketch_of(query)
        rows.append(
            SavedSearch(
                company=buyer,
                user=user,
                kind="product",
                query=query[:200],
                params=FILTERS[n % len(FILTERS)] if n % 3 == 1 else {},
                language=language,
                frequency="daily",
                keys=sketch,
            )
        )
    SavedSearch.objects.bulk_create(rows, batch_size=5000)
    result["setup_seconds"] = round(time.perf_counter() - began, 1)
    result["distinct_queries"] = len(sketches)

    rebuild_now()
    forget_percolator()
    with transaction.atomic():
        last = IndexOutbox.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        PercolationCursor.objects.all().delete()
        PercolationCursor.objects.create(position=last)
    engine = percolator()
    began = time.perf_counter()
    engine.refresh()
    result["registry_seconds"] = round(time.perf_counter() - began, 2)

    suppliers = [
        Company.objects.create(slug=f"tpbench-supplier-{c}", legal_name=f"Supplier {c}", country=c)
        for c in ("CN", "TW")
    ]
    per_listing: list[float] = []
    refresh_seconds = 0.0
    matches = 0
    published = load_titles(data_dir, titles)
    for start in range(0, len(published), PUBLISH_BATCH):
        chunk = published[start : start + PUBLISH_BATCH]
        now = timezone.now()
        with transaction.atomic():
            created = Product.objects.bulk_create(
                [
                    Product(
                        company=suppliers[(start + i) % 2],
                        slug=f"s{start + i}",
                        original_language=language,
                        title=title[:200],
                        category=category,
                        moq=1,
                        moq_unit="piece",
                        price_min=(start + i) % 90 + 1,
                        currency="USD",
                        status=ProductStatus.PUBLISHED,
                        published_at=now,
                    )
                    for i, (title, language) in enumerate(chunk)
                ]
            )
            record_changes(kind="product", object_ids=[p.pk for p in created])
        apply_outbox()
        found: list[tuple[int, int]] = []
        # As the percolator does: the registry refreshed and the batch's tokens built at
        # once (their share counted in each listing's time), then each listing matched.
        t0 = time.perf_counter()
        engine.refresh()  # as `percolate` does before each batch (timed apart)
        refresh_seconds += time.perf_counter() - t0
        t0 = time.perf_counter()
        tokens, when = document_texts("product", [p.pk for p in created])
        share = (time.perf_counter() - t0) * 1000 / max(1, len(created))
        for product in created:
            t0 = time.perf_counter()
            if product.pk in tokens:
                found.extend(
                    engine.match(
                        "product", {product.pk: tokens[product.pk]}, {product.pk: when[product.pk]}
                    )
                )
            per_listing.append((time.perf_counter() - t0) * 1000 + share)
        AlertMatch.objects.bulk_create(
            [AlertMatch(alert_id=a, object_id=o, matched_at=now) for a, o in found],
            ignore_conflicts=True,
            batch_size=5000,
        )
        matches += len(found)
        say(f"published {start + len(chunk):,} of {len(published):,}; {matches:,} matches")
    result["percolation_ms"] = {
        "p50": round(statistics.median(per_listing), 2),
        "p95": round(_percentile(per_listing, 0.95), 2),
        "mean": round(statistics.fmean(per_listing), 2),
    }
    result["matches"] = matches
    result["refresh_seconds"] = round(refresh_seconds, 1)
    result["rekeyed"] = engine.rekeyed
    result["alerts_with_matches"] = AlertMatch.objects.values("alert_id").distinct().count()

    # The brute-force reference: each saved search run as the results page runs it.
    say("brute-force reference…")
    snap = snapshot()
    rng = random.Random(11)
    all_ids = list(SavedSearch.objects.order_by("pk").values_list("pk", flat=True))
    chosen = set(rng.sample(all_ids, min(sample, len(all_ids))))
    alerts = list(SavedSearch.objects.filter(pk__in=chosen).order_by("pk"))
    began = time.perf_counter()
    for alert in alerts:
        shown = compile_shown(alert.kind, alert.query, alert.params, snap)
        snap.searcher.search(combine(shown.filters, shown.text.scored()), 10, True)
    per_alert = (time.perf_counter() - began) / max(1, len(alerts))
    result["brute_force_ms_per_listing"] = round(per_alert * saved / titles * 1000, 2)
    result["brute_force_sample"] = len(alerts)

    # Agreement on the sample: the rule stated on the index, run now over each candidate.
    say("agreement with the rule on the index…")
    sent = set(AlertMatch.objects.filter(alert_id__in=chosen).values_list("alert_id", "object_id"))
    reference: set[tuple[int, int]] = set()
    for alert in alerts[:500]:
        saved_query = compile_saved(alert.kind, alert.query, alert.params, snap)
        scored = saved_query.text.scored(RELAXED)  # any unit or gram: the candidates
        if scored is None:
            continue
        hits = snap.searcher.search(combine(saved_query.filters, scored), titles, False).hits
        ids = snap.searcher.fast_field_values("id", [address for _s, address in hits])
        for object_id in ids:
            if object_id is not None and clearly_matches(saved_query, int(object_id), snap):
                reference.add((alert.pk, int(object_id)))
    checked = {alert.pk for alert in alerts[:500]}
    sent_checked = {pair for pair in sent if pair[0] in checked}
    both = sent_checked & reference
    result["agreement"] = {
        "alerts": len(checked),
        "sent": len(sent_checked),
        "reference": len(reference),
        "both": len(both),
    }

    # The digest build.
    say(f"digests for up to {recipients:,} recipients…")
    with_matches = list(
        SavedSearch.objects.filter(matches__isnull=False)
        .distinct()
        .order_by("pk")
        .values_list("pk", flat=True)[:recipients]
    )
    missing = recipients - len(with_matches)
    if missing > 0:  # everyone gets a digest: add a match to the alerts that had none
        product_ids = list(Product.objects.values_list("pk", flat=True))
        extra = list(
            SavedSearch.objects.filter(matches__isnull=True)
            .order_by("pk")
            .values_list("pk", flat=True)[:missing]
        )
        now = timezone.now()
        AlertMatch.objects.bulk_create(
            [
                AlertMatch(alert_id=a, object_id=product_ids[n % len(product_ids)], matched_at=now)
                for n, a in enumerate(extra)
            ],
            batch_size=5000,
        )
    keep = set(with_matches) | set(
        SavedSearch.objects.filter(matches__isnull=False)
        .exclude(pk__in=with_matches)
        .values_list("pk", flat=True)[: max(0, missing)]
    )
    SavedSearch.objects.exclude(pk__in=keep).update(paused=True)
    with (
        override_settings(EMAIL_BACKEND="django.core.mail.backends.dummy.EmailBackend"),
        PeakMemory() as memory,
    ):
        began = time.perf_counter()
        sent_count = digests_send_due()
        seconds = time.perf_counter() - began
    result["digests"] = {
        "sent": sent_count,
        "seconds": round(seconds, 1),
        "rss_before_mb": round(memory.before / 2**20),
        "rss_peak_mb": round(memory.peak / 2**20),
    }
    return result


def markdown(result: dict[str, Any], *, started: str) -> str:
    p = result["percolation_ms"]
    a = result["agreement"]
    d = result["digests"]
    lines = [
        "# Trade alerts at scale",
        "",
        f"Written by `tradepost bench alerts --scale` ({started}). {result['saved']:,} saved "
        f"searches ({result['distinct_queries']:,} distinct real queries in three languages, a "
        f"third with a filter) against {result['titles']:,} newly published real titles.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| registry load ({result['saved']:,} alerts) | {result['registry_seconds']} s |",
        f"| registry refreshes before each batch of {PUBLISH_BATCH} (all alerts keyed again "
        f"{result['rekeyed']} times as the index grew from empty) | "
        f"{result['refresh_seconds']} s in all |",
        f"| percolation per new listing p50 / p95 / mean | {p['p50']} / {p['p95']} / "
        f"{p['mean']} ms |",
        f"| brute force per new listing (every saved search run as the results page runs it; "
        f"timed on {result['brute_force_sample']:,}, scaled) | "
        f"{result['brute_force_ms_per_listing']} ms |",
        f"| matches recorded / alerts with a match | {result['matches']:,} / "
        f"{result['alerts_with_matches']:,} |",
        f"| agreement on {a['alerts']} alerts: sent / the rule on the index now / both | "
        f"{a['sent']} / {a['reference']} / {a['both']} |",
        f"| digests: {d['sent']:,} emails built and handed over | {d['seconds']} s, peak RSS "
        f"{d['rss_peak_mb']} MB (before: {d['rss_before_mb']} MB) |",
    ]
    return "\n".join(lines) + "\n"


def latency(*, count: int = 20, say: Callable[[str], None] = lambda _m: None) -> dict[str, Any]:
    """Publish → alert for "as it happens" alerts with the worker idle: a `tradepost worker`
    runs beside this process (emails dropped by the dummy backend); each listing is
    published through the outbox in its own transaction, and the time until its alert's
    digest is sent is read from the database."""
    import os
    import subprocess
    import sys

    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from tradepost.alerts.models import AlertDigest, DigestStatus
    from tradepost.alerts.services import saved_search_create
    from tradepost.catalog.models import Category, Product, ProductStatus
    from tradepost.companies.models import Company, Membership, Role
    from tradepost.search.indexer import apply_outbox
    from tradepost.search.outbox import record_change

    category = Category.objects.filter(is_leaf=True).order_by("path").first()
    if category is None:
        raise RuntimeError("No category: run migrate first.")
    supplier = Company.objects.create(slug="tpbench-latency", legal_name="Latency", country="CN")
    User = get_user_model()
    alerts = []
    for n in range(count):
        user = User.objects.create(email=f"latency{n}@bench.invalid", password="!")
        buyer = Company.objects.create(
            slug=f"tpbench-latency-{n}", legal_name=f"B{n}", country="DE"
        )
        Membership.objects.create(user=user, company=buyer, role=Role.OWNER)
        alerts.append(
            saved_search_create(actor=user, kind="product", query=f"qzxv{n}", frequency="instant")
        )
    apply_outbox()  # the index exists before the worker starts
    env = {
        **os.environ,
        "EMAIL_BACKEND": "django.core.mail.backends.dummy.EmailBackend",
    }
    worker = subprocess.Popen(
        [sys.executable, "-m", "tradepost.cli", "worker"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    seconds: list[float] = []
    try:
        time.sleep(5.0)  # the worker starts and goes idle
        for n, alert in enumerate(alerts):
            with transaction.atomic():
                product = Product.objects.create(
                    company=supplier,
                    slug=f"latency-{n}",
                    original_language="en",
                    title=f"Vacuum flask qzxv{n}",
                    category=category,
                    moq=1,
                    moq_unit="piece",
                    status=ProductStatus.PUBLISHED,
                    published_at=timezone.now(),
                )
                record_change(kind="product", object_id=product.pk)
            began = time.perf_counter()
            while not AlertDigest.objects.filter(alert=alert, status=DigestStatus.SENT).exists():
                if time.perf_counter() - began > 60:
                    break
                time.sleep(0.02)
            seconds.append(time.perf_counter() - began)
            say(f"listing {n + 1} of {count}: {seconds[-1]:.2f} s")
            time.sleep(1.0)  # idle again
    finally:
        worker.terminate()
        worker.wait(timeout=60)
    return {
        "count": count,
        "p50_s": round(statistics.median(seconds), 2),
        "p95_s": round(_percentile(seconds, 0.95), 2),
        "max_s": round(max(seconds), 2),
    }
