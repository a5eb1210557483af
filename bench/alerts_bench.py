"""Trade alerts measured on judged real queries (`../shared/data/relevance/`, docs/adr/0037).

Quality: each judged query is saved as a product alert (in the language of the set's
shoppers) before anything is published; then the set's titles are published a batch at a
time through the project's code path (written to the database, machine-translated as the
background task does, recorded in the search outbox, applied by the indexer and percolated,
as the worker does). Reported per set:

- **alert recall**: the share of queries whose relevant title reached their alert;
- **noise**: titles alerted per query, median and 90th percentile, as counts and as a share
  of the collection.

In the same run, plain BM25 (tantivy over Chinese single characters and Latin words, every
token optional: the relevance bench's reference) with the single score threshold that gives
the best recall within the noise goals, for reference.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import relevance_bench as rb

RESULTS_DIR = rb.RESULTS_DIR
SETS = ("zh", "en", "en_distractors")
#: Titles published between two runs of the indexer and the percolator.
PUBLISH_BATCH = 200
#: The goals of issue #29 (recall at least; noise shares at most).
RECALL_GOAL = 0.90
NOISE_MEDIAN_GOAL = 0.01
NOISE_P90_GOAL = 0.03


@dataclass
class Quality:
    recall: float
    noise_median: float
    noise_p90: float
    titles: int

    def row(self) -> str:
        median, p90 = self.noise_median, self.noise_p90
        return (
            f"{self.recall:.3f} | {median:.0f} ({median / self.titles:.2%}) | "
            f"{p90:.0f} ({p90 / self.titles:.2%})"
        )


def _p90(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[int(0.9 * (len(ordered) - 1))] if ordered else 0.0


def quality_of(alerted: Sequence[set[int]], judged: rb.JudgedSet) -> Quality:
    hits = [
        1.0 if relevant & alerted[q] else 0.0 for q, (_t, relevant) in enumerate(judged.queries)
    ]
    sizes = [float(len(found)) for found in alerted]
    return Quality(
        recall=round(statistics.fmean(hits), 4) if hits else 0.0,
        noise_median=statistics.median(sizes) if sizes else 0.0,
        noise_p90=_p90(sizes),
        titles=len(judged.titles),
    )


def within_goals(quality: Quality) -> bool:
    return (
        quality.noise_median <= NOISE_MEDIAN_GOAL * quality.titles
        and quality.noise_p90 <= NOISE_P90_GOAL * quality.titles
    )


# --- the plain BM25 reference with one threshold ----------------------------------------------


def reference_scores(judged: rb.JudgedSet) -> list[dict[int, float]]:
    """Every title's plain BM25 score for every query (titles scoring 0 left out)."""
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field("doc", stored=True)
    builder.add_text_field("text", tokenizer_name="whitespace", index_option="freq")
    schema = builder.build()
    scores: list[dict[int, float]] = []
    with tempfile.TemporaryDirectory(prefix="tp-bm25-") as folder:
        index = tantivy.Index(schema, path=folder)
        writer = index.writer(heap_size=100_000_000, num_threads=1)
        for position, title in enumerate(judged.titles):
            writer.add_document(
                tantivy.Document(doc=position, text=" ".join(rb.reference_tokens(title)))
            )
        writer.commit()
        writer.wait_merging_threads()
        index.reload()
        searcher = index.searcher()
        for query, _relevant in judged.queries:
            tokens = list(dict.fromkeys(rb.reference_tokens(query)))
            if not tokens:
                scores.append({})
                continue
            clause = tantivy.Query.boolean_query(
                [
                    (tantivy.Occur.Should, tantivy.Query.term_query(schema, "text", t))
                    for t in tokens
                ]
            )
            hits = searcher.search(clause, len(judged.titles)).hits
            scores.append(
                {searcher.doc(address)["doc"][0]: float(score) for score, address in hits}
            )
    return scores


def best_threshold(judged: rb.JudgedSet, scores: list[dict[int, float]]) -> tuple[float, Quality]:
    """The single score threshold with the best recall within the noise goals (the lowest
    noise among equals); when none is within them, the one with the least noise."""
    candidates = sorted({round(s, 2) for found in scores for s in found.values()})
    step = max(1, len(candidates) // 400)
    best: tuple[float, Quality] | None = None
    for threshold in candidates[::step]:
        alerted = [{d for d, s in found.items() if s >= threshold} for found in scores]
        quality = quality_of(alerted, judged)
        if not within_goals(quality):
            continue
        if best is None or (quality.recall, -quality.noise_p90) > (
            best[1].recall,
            -best[1].noise_p90,
        ):
            best = (threshold, quality)
    if best is None:
        top = candidates[-1] if candidates else 0.0
        alerted = [{d for d, s in found.items() if s >= top} for found in scores]
        best = (top, quality_of(alerted, judged))
    return best


# --- the service: save, publish, percolate ----------------------------------------------------


def _bench_buyer() -> Any:
    from django.contrib.auth import get_user_model

    from tradepost.companies.models import Company, Membership, Role

    company, _ = Company.objects.get_or_create(
        slug="tpbench-alerts-buyer",
        defaults={"legal_name": "Tpbenchbuyer", "country": "DE", "original_language": "en"},
    )
    user, _ = get_user_model().objects.get_or_create(
        email="alerts-bench@example.invalid", defaults={"is_active": True}
    )
    Membership.objects.get_or_create(user=user, defaults={"company": company, "role": Role.OWNER})
    return user, company


def service_alerted(
    judged: rb.JudgedSet, say: Callable[[str], None]
) -> tuple[list[set[int]], dict[str, float]]:
    """Save every query as an alert, publish the titles a batch at a time, percolate; the
    title positions alerted per query, and timings."""
    from django.db import transaction
    from django.utils import timezone

    from tradepost.alerts.models import AlertMatch, PercolationCursor, SavedSearch
    from tradepost.alerts.percolation import forget_percolator, percolate
    from tradepost.catalog.machine_texts import products_translate
    from tradepost.catalog.models import Category, Product, ProductStatus
    from tradepost.companies.models import Company
    from tradepost.search.indexer import apply_outbox, rebuild_now
    from tradepost.search.models import IndexOutbox
    from tradepost.search.outbox import record_changes
    from tradepost.search.sketches import sketch_of

    others = Product.objects.filter(status=ProductStatus.PUBLISHED).exclude(
        company__slug=rb.COMPANY_SLUG
    )
    if others.exists():
        raise RuntimeError(
            "The database holds other published products; measure in an empty TRADEPOST_HOME."
        )
    category = Category.objects.filter(is_leaf=True).order_by("path").first()
    if category is None:
        raise RuntimeError("No category: run migrate first (it loads the reference data).")
    user, buyer = _bench_buyer()
    supplier, _ = Company.objects.get_or_create(
        slug=rb.COMPANY_SLUG,
        defaults={"legal_name": rb.COMPANY_NAME, "country": "TW", "original_language": "en"},
    )
    # A clean start: no listings, alerts or matches of an earlier set; the index rebuilt
    # empty and the percolator placed at the end of the outbox.
    Product.objects.filter(company=supplier).delete()
    SavedSearch.objects.filter(company=buyer).delete()
    rebuild_now()
    forget_percolator()
    with transaction.atomic():
        last = IndexOutbox.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        PercolationCursor.objects.all().delete()
        PercolationCursor.objects.create(position=last)
    language = judged.ui_language
    alerts = SavedSearch.objects.bulk_create(
        [
            SavedSearch(
                company=buyer,
                user=user,
                kind="product",
                query=query[:200],
                params={},
                language=language,
                frequency="daily",
                keys=sketch_of(query[:200]),
            )
            for query, _relevant in judged.queries
        ]
    )
    position_of_alert = {alert.pk: q for q, alert in enumerate(alerts)}
    timings = {"publish": 0.0, "index": 0.0, "percolate": 0.0}
    positions: dict[int, int] = {}
    for start in range(0, len(judged.titles), PUBLISH_BATCH):
        chunk = judged.titles[start : start + PUBLISH_BATCH]
        began = time.perf_counter()
        now = timezone.now()
        with transaction.atomic():
            created = Product.objects.bulk_create(
                [
                    Product(
                        company=supplier,
                        slug=f"t{start + offset}",
                        original_language=judged.language,
                        title=title[:200],
                        category=category,
                        moq=1,
                        moq_unit="piece",
                        status=ProductStatus.PUBLISHED,
                        published_at=now,
                    )
                    for offset, title in enumerate(chunk)
                ]
            )
            record_changes(kind="product", object_ids=[p.pk for p in created])
        products_translate(p.pk for p in created)
        for offset, product in enumerate(created):
            positions[product.pk] = start + offset
        timings["publish"] += time.perf_counter() - began
        began = time.perf_counter()
        apply_outbox()
        timings["index"] += time.perf_counter() - began
        began = time.perf_counter()
        percolate()
        timings["percolate"] += time.perf_counter() - began
        say(f"{judged.name}: published {start + len(chunk):,} of {len(judged.titles):,}")
    alerted: list[set[int]] = [set() for _ in judged.queries]
    for alert_id, object_id in AlertMatch.objects.filter(alert__company=buyer).values_list(
        "alert_id", "object_id"
    ):
        if object_id in positions:
            alerted[position_of_alert[alert_id]].add(positions[object_id])
    return alerted, {name: round(value, 2) for name, value in timings.items()}


def measure_quality(judged: rb.JudgedSet, say: Callable[[str], None]) -> dict[str, Any]:
    started = time.perf_counter()
    alerted, timings = service_alerted(judged, say)
    service = quality_of(alerted, judged)
    threshold, reference = best_threshold(judged, reference_scores(judged))
    return {
        "set": judged.name,
        "titles": len(judged.titles),
        "queries": len(judged.queries),
        "service": vars(service),
        "reference": {**vars(reference), "threshold": threshold},
        "timings": timings,
        "seconds": round(time.perf_counter() - started, 1),
        "alerted": [sorted(found) for found in alerted],
    }


def markdown(results: Sequence[dict[str, Any]], *, started: str, split: str) -> str:
    lines = [
        "# Trade alerts on judged real queries",
        "",
        f"Written by `tradepost bench alerts` ({started}, split `{split}`). Each "
        "query saved as a product alert, then the set's titles published in batches of "
        f"{PUBLISH_BATCH} through the project's code path (translated, indexed, percolated). "
        "Plain BM25 with the single best score threshold within the noise goals, same run.",
        "",
        "| set | titles | queries | method | alert recall | noise median | noise p90 |",
        "|---|---|---|---|---|---|---|",
    ]
    for result in results:
        for method, key in (("service", "service"), ("plain BM25, best threshold", "reference")):
            q = Quality(
                recall=result[key]["recall"],
                noise_median=result[key]["noise_median"],
                noise_p90=result[key]["noise_p90"],
                titles=result["titles"],
            )
            label = method
            if key == "reference":
                label += f" (≥ {result['reference']['threshold']:.2f})"
            lines.append(
                f"| {result['set']} | {result['titles']:,} | {result['queries']} | {label} | "
                f"{q.row()} |"
            )
    lines += [
        "",
        f"Goals: recall ≥ {RECALL_GOAL} (zh, en); noise median ≤ {NOISE_MEDIAN_GOAL:.0%} and "
        f"p90 ≤ {NOISE_P90_GOAL:.0%} of the collection.",
        "",
        "| set | publish+translate s | index s | percolate s | percolate ms a title |",
        "|---|---|---|---|---|",
    ]
    for result in results:
        t = result["timings"]
        lines.append(
            f"| {result['set']} | {t['publish']:.1f} | {t['index']:.1f} | {t['percolate']:.1f} | "
            f"{1000 * t['percolate'] / max(1, result['titles']):.2f} |"
        )
    return "\n".join(lines) + "\n"


def write_report(
    results: Sequence[dict[str, Any]], *, started: str, split: str, results_dir: Path
) -> tuple[Path, Path]:
    results_dir.mkdir(parents=True, exist_ok=True)
    stamp = started.replace("-", "").replace(":", "")[:15]
    json_path = results_dir / f"alerts-quality-{split}-{stamp}.json"
    json_path.write_text(
        json.dumps({"started": started, "split": split, "sets": list(results)}, indent=1),
        encoding="utf-8",
    )
    md_path = results_dir / f"alerts-quality-{split}-latest.md"
    md_path.write_text(markdown(results, started=started, split=split), encoding="utf-8")
    return json_path, md_path
