"""Near-duplicate listings (`tradepost.search.fingerprints`, ADR 0024): how well and how fast.

Quality, on the product-pair benchmarks of `../shared/data/entity_matching/` (Abt-Buy,
Amazon-Google, Walmart-Amazon, WDC computers; pairs of listings labelled match or not):

1. Shingle schemes compared on exact Jaccard similarity: the threshold that gives the best
   F1 on the pooled train splits, then precision/recall/F1 at that threshold on each valid
   split and pooled (and on a test split, held out, where a set has one). Each record is a
   listing: its name or title is the title, its description, manufacturer, brand and model
   number the body (the price and the shop's category are left out).
2. The shipped pipeline (`fingerprints.SCHEME`): MinHash signatures, LSH bands and the
   estimate, the threshold chosen again on train; a pair is a likely duplicate when the two
   share a band and the estimate reaches the threshold, as in `likely_duplicates`. With the
   share of pairs at or above the threshold that the bands let through, for a few banding
   choices.
3. Chinese, synthetic (no labelled Chinese pairs exist here): 1,000 real traditional titles
   (`traditional_titles/test_tcn.csv`), each against a reworded copy in simplified script
   (words reordered, one dropped, a sales word added) and against the most alike other real
   title of the 10,000 (a hard negative; a few may be the same product of another seller).
   At the threshold chosen on the English train splits, for three shingle schemes.

Speed: the publish check (`catalog.duplicate_listings.likely_duplicates_of`, what
`product_publish` adds once it holds the product: the texts, the band lookup, the signatures
compared, the duplicates loaded) on listings
of one company with 100,000 published listings (generated with `tradepost generate`'s code
and fingerprinted with `fingerprints_rebuild`, in TRADEPOST_HOME), interleaved sample by
sample with the same check in a company of 1,000 listings (the reference) and the cheapest
query there is (one product's title by primary key, the floor). Goal: p95 <= 20 ms.

Used by `tradepost bench duplicates`; results in bench/results/duplicates-<time>.{json,md}.
"""

from __future__ import annotations

import csv
import itertools
import json
import random
import re
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA_DIR = REPO_ROOT.parent / "shared" / "data"
RESULTS_DIR = REPO_ROOT / "bench" / "results"
SETS = ("Abt-Buy", "Amazon-Google", "Walmart-Amazon", "WDC-computers")
SPLITS = ("train", "valid", "test")
#: Thresholds tried (0.05 to 0.95).
GRID = [round(step / 100, 2) for step in range(5, 96)]
#: Banding choices compared: (bands, rows), within 128 MinHash values.
BANDINGS = [(16, 2), (20, 2), (32, 2), (21, 3), (32, 4), (16, 8)]
#: Records' columns that make a listing's body (besides the description).
BODY_COLUMNS = ("manufacturer", "brand", "modelno")

Say = Callable[[str], None]


# --- the data ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Listing:
    title: str
    body: str


@dataclass(frozen=True)
class Pair:
    left: Listing
    right: Listing
    match: bool


_COLUMN_RE = re.compile(r"COL (\w+) VAL ")


def _record(side: str) -> dict[str, str]:
    parts = _COLUMN_RE.split(side)
    return {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def _listing(side: str) -> Listing:
    from tradepost.search.fingerprints import listing_body

    record = _record(side)
    return Listing(
        title=record.get("title") or record.get("name") or "",
        body=listing_body(
            description=record.get("description", ""),
            attributes=[record.get(column, "") for column in BODY_COLUMNS],
        ),
    )


def available(data_dir: Path = DEFAULT_DATA_DIR) -> bool:
    return (data_dir / "entity_matching" / SETS[0]).is_dir()


def split_file(data_dir: Path, name: str, split: str) -> Path | None:
    """`train.txt`, or `train.small.txt` (WDC), ...; None when the set has no such split."""
    folder = data_dir / "entity_matching" / name
    found = sorted(p for p in folder.glob(f"{split}*.txt") if p.name.split(".")[0] == split)
    return found[0] if found else None


def load_pairs(data_dir: Path, name: str, split: str) -> list[Pair]:
    path = split_file(data_dir, name, split)
    if path is None:
        return []
    pairs = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 3:
                continue
            pairs.append(Pair(_listing(fields[0]), _listing(fields[1]), fields[2].strip() == "1"))
    return pairs


# --- scores --------------------------------------------------------------------------------


def prf(predicted: Iterable[bool], truth: Iterable[bool]) -> dict[str, float]:
    tp = fp = fn = 0
    for guess, label in zip(predicted, truth, strict=True):
        tp += guess and label
        fp += guess and not label
        fn += label and not guess
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "precision": round(precision, 3),
        "recall": round(recall, 3),
        "f1": round(f1, 3),
        "pairs": tp + fp + fn,
    }


def best_threshold(
    scores: list[float], truth: list[bool], allowed: list[bool] | None = None
) -> float:
    """The threshold of `GRID` with the best F1 (the lowest among equals)."""
    allowed = allowed or [True] * len(scores)

    def f1(threshold: float) -> float:
        guesses = [ok and score >= threshold for score, ok in zip(scores, allowed, strict=True)]
        return prf(guesses, truth)["f1"]

    return max(GRID, key=lambda threshold: (f1(threshold), -threshold))


def jaccard(first: set[str], second: set[str]) -> float:
    union = len(first | second)
    return len(first & second) / union if union else 0.0


# --- shingle schemes -----------------------------------------------------------------------


def _title_words(listing: Listing) -> set[str]:
    from tradepost.search.analysis import analyze_fields

    words, grams = analyze_fields(listing.title)
    return set(words) | {"~" + gram for gram in grams if len(gram) == 2}


def _title_body_words(listing: Listing) -> set[str]:
    from tradepost.search.analysis import analyze_fields

    words, grams = analyze_fields(listing.title + "\n" + listing.body)
    return set(words) | {"~" + gram for gram in grams if len(gram) == 2}


def _title_word_bigrams(listing: Listing) -> set[str]:
    from tradepost.search.analysis import analyze_words

    words = analyze_words(listing.title)
    return _title_words(listing) | {f"{a} {b}" for a, b in itertools.pairwise(words)}


def _title_char_trigrams(listing: Listing) -> set[str]:
    from tradepost.search.analysis import normalize

    text = normalize(listing.title).replace(" ", "_")
    return {text[i : i + 3] for i in range(len(text) - 2)}


def _chosen(listing: Listing) -> set[str]:
    from tradepost.search.fingerprints import listing_shingles

    return listing_shingles(listing.title, listing.body)


SCHEMES: dict[str, Callable[[Listing], set[str]]] = {
    "title words": _title_words,
    "title + body words": _title_body_words,
    "title words + word bigrams": _title_word_bigrams,
    "title character 3-grams": _title_char_trigrams,
    "title words + weighted codes (shipped)": _chosen,
}


class _Memo:
    def __init__(self, function: Callable[[Listing], Any]) -> None:
        self.function = function
        self.values: dict[Listing, Any] = {}

    def __call__(self, listing: Listing) -> Any:
        found = self.values.get(listing)
        if found is None:
            found = self.values[listing] = self.function(listing)
        return found


def compare_schemes(splits: dict[str, dict[str, list[Pair]]], say: Say) -> list[dict[str, Any]]:
    """Exact Jaccard per scheme: threshold on pooled train, P/R/F1 on each split."""
    rows = []
    for name, scheme in SCHEMES.items():
        shingles = _Memo(scheme)
        scores = {
            split: {
                dataset: [jaccard(shingles(p.left), shingles(p.right)) for p in pairs]
                for dataset, pairs in by_set.items()
            }
            for split, by_set in splits.items()
        }
        train_scores = [s for dataset in SETS for s in scores["train"].get(dataset, [])]
        train_truth = [p.match for dataset in SETS for p in splits["train"].get(dataset, [])]
        threshold = best_threshold(train_scores, train_truth)
        rows.append({"scheme": name, "threshold": threshold, **_scored(splits, scores, threshold)})
        say(f"  {name}: threshold {threshold}, valid {rows[-1]['valid']['pooled']}")
    return rows


def _scored(
    splits: dict[str, dict[str, list[Pair]]],
    scores: dict[str, dict[str, list[float]]],
    threshold: float,
    allowed: dict[str, dict[str, list[bool]]] | None = None,
) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for split, by_set in splits.items():
        if not any(by_set.values()):
            continue
        per_set: dict[str, Any] = {}
        pooled_guess: list[bool] = []
        pooled_truth: list[bool] = []
        for dataset, pairs in by_set.items():
            if not pairs:
                continue
            ok = allowed[split][dataset] if allowed else [True] * len(pairs)
            guesses = [
                fine and score >= threshold
                for score, fine in zip(scores[split][dataset], ok, strict=True)
            ]
            truth = [pair.match for pair in pairs]
            per_set[dataset] = prf(guesses, truth)
            pooled_guess += guesses
            pooled_truth += truth
        per_set["pooled"] = prf(pooled_guess, pooled_truth)
        result[split] = per_set
    return result


# --- the shipped pipeline ------------------------------------------------------------------


def pipeline(splits: dict[str, dict[str, list[Pair]]], say: Say) -> dict[str, Any]:
    """MinHash + LSH as shipped; the threshold chosen on train; banding alternatives."""
    from tradepost.search import fingerprints as shipped

    scheme = shipped.SCHEME
    kind = shipped.PRODUCT_KIND

    def fingerprint(listing: Listing) -> Any:
        return shipped.fingerprint(kind, listing.title, listing.body)

    fingerprints = _Memo(fingerprint)
    started = time.perf_counter()
    estimates: dict[str, dict[str, list[float]]] = defaultdict(dict)
    shared_band: dict[str, dict[str, list[bool]]] = defaultdict(dict)
    values: dict[str, dict[str, list[tuple[Any, Any]]]] = defaultdict(dict)
    for split, by_set in splits.items():
        for dataset, pairs in by_set.items():
            found = [(fingerprints(p.left), fingerprints(p.right)) for p in pairs]
            values[split][dataset] = found
            estimates[split][dataset] = [
                shipped.similarity(a.values, b.values) if a and b else 0.0 for a, b in found
            ]
            shared_band[split][dataset] = [
                bool(a and b and set(a.keys) & set(b.keys)) for a, b in found
            ]
    count = len(fingerprints.values)
    seconds = time.perf_counter() - started
    say(f"  {count:,} listings fingerprinted in {seconds:.1f} s")
    train_scores = [s for d in SETS for s in estimates["train"].get(d, [])]
    train_ok = [s for d in SETS for s in shared_band["train"].get(d, [])]
    train_truth = [p.match for d in SETS for p in splits["train"].get(d, [])]
    threshold = best_threshold(train_scores, train_truth, train_ok)
    result: dict[str, Any] = {
        "scheme": {
            "version": scheme.version,
            "num_perm": scheme.num_perm,
            "bands": scheme.bands,
            "rows": scheme.rows,
            "code_weight": scheme.code_weight,
        },
        "threshold": threshold,
        "fingerprint_ms": round(seconds * 1000 / max(1, count), 3),
        **_scored(splits, estimates, threshold, shared_band),
    }
    # How many of the pairs at or above the threshold each banding lets through (recall of
    # the candidate step), and how many pairs below it (the work of the comparison step).
    bandings = []
    for bands, rows in BANDINGS:
        alternative = shipped.Scheme(
            version=0, num_perm=scheme.num_perm, bands=bands, rows=rows, seed=scheme.seed
        )
        above = below = above_hit = below_hit = 0
        for split in values:
            for dataset, found in values[split].items():
                for (a, b), estimate in zip(found, estimates[split][dataset], strict=True):
                    if not (a and b):
                        continue
                    hit = bool(
                        set(shipped.band_keys(kind, a.values, alternative))
                        & set(shipped.band_keys(kind, b.values, alternative))
                    )
                    if estimate >= threshold:
                        above, above_hit = above + 1, above_hit + hit
                    else:
                        below, below_hit = below + 1, below_hit + hit
        bandings.append(
            {
                "bands": bands,
                "rows": rows,
                "shipped": (bands, rows) == (scheme.bands, scheme.rows),
                "candidates_at_or_above_threshold": round(above_hit / max(1, above), 4),
                "candidates_below_threshold": round(below_hit / max(1, below), 4),
            }
        )
    result["bandings"] = bandings
    say(f"  pipeline: threshold {threshold}, valid {result['valid']['pooled']}")
    return result


# --- Chinese, synthetic --------------------------------------------------------------------

SALES_WORDS = ("热销", "新款", "厂家直销", "包邮", "现货")


_CHUNK_RE = re.compile(r"[\s【】\[\]（）()「」『』《》,，/|｜]+")
_HAN_RE = re.compile(r"[\u4e00-\u9fff]")


def reworded_by_parts(title: str, rng: random.Random, to_simplified: Any) -> str:
    """A supplier's copy of `title`: in simplified script, its parts (as the title separates
    them: spaces, brackets, commas) in another order, one Chinese character left out (an
    edit inside a word: the segmenter may cut the rest differently), a sales word added."""
    parts = [part for part in _CHUNK_RE.split(to_simplified.convert(title)) if part]
    if len(parts) > 1:
        shift = rng.randrange(1, len(parts))
        parts = parts[shift:] + parts[:shift]
    han = [(i, j) for i, part in enumerate(parts) for j, ch in enumerate(part) if _HAN_RE.match(ch)]
    if len(han) > 6:
        i, j = rng.choice(han)
        parts[i] = parts[i][:j] + parts[i][j + 1 :]
    parts.insert(rng.randrange(len(parts) + 1), rng.choice(SALES_WORDS))
    return " ".join(parts)


def reworded_by_words(title: str, rng: random.Random, to_simplified: Any) -> str:
    """A supplier's copy of `title`: in simplified script, cut into words by the segmenter the
    analysis uses (rjieba), the words in another order, one left out, a sales word added.
    (It favours segmented words: the copy keeps the segmenter's own cuts.)"""
    import rjieba

    words = [word for word in rjieba.cut(to_simplified.convert(title)) if word.strip()]
    if len(words) > 1:
        shift = rng.randrange(1, len(words))
        words = words[shift:] + words[:shift]
    if len(words) > 4:
        del words[rng.randrange(len(words))]
    words.insert(rng.randrange(len(words) + 1), rng.choice(SALES_WORDS))
    return "".join(words)


#: How the synthetic Chinese copies are made.
REWORDINGS = {"by parts, one character edited": reworded_by_parts, "by words": reworded_by_words}


def chinese_pairs(
    data_dir: Path,
    *,
    rewording: Callable[[str, random.Random, Any], str] = reworded_by_parts,
    count: int = 1000,
    seed: int = 7,
) -> list[Pair] | None:
    import opencc

    path = data_dir / "traditional_titles" / "test_tcn.csv"
    if not path.is_file():
        return None
    with path.open(encoding="utf-8-sig", newline="") as handle:
        titles = [row["text"].strip() for row in csv.DictReader(handle) if row["text"].strip()]
    titles = list(dict.fromkeys(titles))
    rng = random.Random(seed)
    sample = rng.sample(range(len(titles)), min(count, len(titles)))
    to_simplified = opencc.OpenCC("t2s")
    shingles = [_chosen(Listing(title, "")) for title in titles]
    postings: dict[str, list[int]] = defaultdict(list)
    for index, found in enumerate(shingles):
        for shingle in found:
            postings[shingle].append(index)
    pairs = []
    for index in sample:
        title = titles[index]
        copy = rewording(title, rng, to_simplified)
        pairs.append(Pair(Listing(title, ""), Listing(copy, ""), True))
        overlap: Counter[int] = Counter()
        for shingle in shingles[index]:
            if len(postings[shingle]) < 2000:  # very common shingles say little
                overlap.update(postings[shingle])
        overlap.pop(index, None)
        nearest = max(
            (other for other, _ in overlap.most_common(50)),
            key=lambda other: jaccard(shingles[index], shingles[other]),
            default=None,
        )
        if nearest is not None and titles[nearest] != title:
            pairs.append(Pair(Listing(title, ""), Listing(titles[nearest], ""), False))
    return pairs


def chinese_check(pairs: list[Pair], threshold: float) -> list[dict[str, Any]]:
    from tradepost.search.analysis import analyze_cjk_grams, analyze_words

    schemes: dict[str, Callable[[Listing], set[str]]] = {
        "segmented words only": lambda listing: set(analyze_words(listing.title)),
        "character bigrams only": lambda listing: {
            gram for gram in analyze_cjk_grams(listing.title) if len(gram) == 2
        },
        "words + character bigrams + codes (shipped)": _chosen,
    }
    truth = [pair.match for pair in pairs]
    rows = []
    for name, scheme in schemes.items():
        scores = [jaccard(scheme(p.left), scheme(p.right)) for p in pairs]
        positives = [s for s, label in zip(scores, truth, strict=True) if label]
        negatives = [s for s, label in zip(scores, truth, strict=True) if not label]
        rows.append(
            {
                "scheme": name,
                **prf([s >= threshold for s in scores], truth),
                "median_copy_similarity": round(statistics.median(positives), 3),
                "median_nearest_other_similarity": round(statistics.median(negatives), 3),
            }
        )
    return rows


def quality(data_dir: Path, say: Say) -> dict[str, Any]:
    splits: dict[str, dict[str, list[Pair]]] = {}
    for split in SPLITS:
        by_set = {name: load_pairs(data_dir, name, split) for name in SETS}
        if any(by_set.values()):
            splits[split] = by_set
    counts = {
        split: {name: len(pairs) for name, pairs in by_set.items()}
        for split, by_set in splits.items()
    }
    say(f"Pairs: {counts}")
    say("Shingle schemes (exact Jaccard)…")
    schemes = compare_schemes(splits, say)
    say("The shipped pipeline (MinHash + LSH)…")
    shipped = pipeline(splits, say)
    report: dict[str, Any] = {"pairs": counts, "schemes": schemes, "pipeline": shipped}
    say("Chinese, synthetic…")
    chinese = []
    for name, rewording in REWORDINGS.items():
        pairs = chinese_pairs(data_dir, rewording=rewording)
        if pairs:
            chinese.append(
                {
                    "copies_reworded": name,
                    "pairs": len(pairs),
                    "copies": sum(p.match for p in pairs),
                    "threshold": shipped["threshold"],
                    "schemes": chinese_check(pairs, shipped["threshold"]),
                }
            )
    if chinese:
        report["chinese"] = chinese
    return report


# --- speed ---------------------------------------------------------------------------------


def _one_company(products: int, *, seed: int, workers: int) -> int:
    """Generate `products` published listings and give them all to one company (the
    generator spreads listings over at least two). Answers the company's id."""
    from tradepost.catalog.models import Product
    from tradepost.companies.models import Company
    from tradepost.demo.bulk import generate_catalogue

    before = set(Company.objects.values_list("id", flat=True))
    generate_catalogue(
        products=products, companies=2, seed=seed, outbox=False, images=False, workers=workers
    )
    new = sorted(set(Company.objects.values_list("id", flat=True)) - before)
    Product.objects.filter(company_id__in=new).update(company_id=new[0])
    return new[0]


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)

    def at(share: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000, 3)

    return {
        "p50_ms": at(0.5),
        "p95_ms": at(0.95),
        "p99_ms": at(0.99),
        "mean_ms": round(statistics.fmean(ordered) * 1000, 3),
    }


def _table_mb(tables: list[str]) -> float | None:
    from django.db import connection

    with connection.cursor() as cursor:
        try:
            if connection.vendor == "postgresql":
                cursor.execute(
                    "SELECT SUM(pg_total_relation_size(c)) FROM unnest(%s::regclass[]) AS c",
                    [tables],
                )
            else:
                marks = ", ".join("%s" for _ in tables)
                cursor.execute(
                    "SELECT SUM(pgsize) FROM dbstat WHERE name IN "
                    f"(SELECT name FROM sqlite_master WHERE tbl_name IN ({marks}))",
                    tables,
                )
            (size,) = cursor.fetchone()
        except Exception:  # dbstat is an optional SQLite module
            return None
    return round(float(size or 0) / 1e6, 1)


def speed(
    *,
    products: int,
    reference: int,
    samples: int,
    seed: int,
    workers: int,
    say: Say,
    reuse: bool = False,
) -> dict[str, Any]:
    """Time the publish check at `products` listings of one company against `reference`.
    With `reuse`, on the two companies an earlier run left in the database (fingerprinted)."""
    from django.db import connection, transaction
    from django.db.models import Count

    from tradepost.catalog.duplicate_listings import likely_duplicates_of
    from tradepost.catalog.models import Product, ProductStatus
    from tradepost.core.database import refresh_planner_statistics
    from tradepost.search.fingerprints import MAX_CANDIDATES, fingerprints_rebuild
    from tradepost.search.models import ListingFingerprint, ListingFingerprintBand

    if reuse and ListingFingerprint.objects.exists():
        by_size = list(Product.objects.values("company_id").annotate(n=Count("id")).order_by("n"))
        small, big = by_size[0]["company_id"], by_size[-1]["company_id"]
        written, build_seconds = ListingFingerprint.objects.count(), 0.0
        say("Reusing the listings and fingerprints in the database…")
    else:
        if Product.objects.exists():
            raise RuntimeError(
                "Run the timing in an empty TRADEPOST_HOME (a fresh database), or --reuse "
                "an earlier run's."
            )
        say(f"Generating {reference:,} + {products:,} listings of two companies…")
        small = _one_company(reference, seed=seed, workers=workers)
        big = _one_company(products, seed=seed + 1, workers=workers)
        say("Fingerprinting them…")
        started = time.perf_counter()
        written = fingerprints_rebuild()
        build_seconds = time.perf_counter() - started
        refresh_planner_statistics()
        say(f"  {written:,} fingerprints in {build_seconds:.1f} s")

    rng = random.Random(seed)
    published = Product.objects.filter(status=ProductStatus.PUBLISHED)
    big_ids = list(published.filter(company_id=big).values_list("id", flat=True))
    small_ids = list(published.filter(company_id=small).values_list("id", flat=True))
    chosen_big = rng.sample(big_ids, min(samples, len(big_ids)))
    chosen_small = [rng.choice(small_ids) for _ in chosen_big]
    timings: dict[str, list[float]] = {"check_100k": [], "check_reference": [], "floor": []}
    found_counts: list[int] = []

    def check(pk: int) -> tuple[float, int]:
        """The check's time on a publish: the product is loaded already (locked, in the
        publishing transaction), the check adds the rest."""
        with transaction.atomic():
            product = Product.objects.select_for_update().select_related("company").get(pk=pk)
            started = time.perf_counter()
            found = len(likely_duplicates_of(product))
            return time.perf_counter() - started, found

    def floor(pk: int) -> None:
        Product.objects.filter(pk=pk).values_list("title", flat=True).first()

    for pk in chosen_big[:20]:  # warm-up: caches, the analysis' dictionaries
        check(pk)
    say(f"Timing {len(chosen_big)} checks each…")
    for big_pk, small_pk in zip(chosen_big, chosen_small, strict=True):
        seconds, found = check(big_pk)
        timings["check_100k"].append(seconds)
        found_counts.append(found)
        timings["check_reference"].append(check(small_pk)[0])
        started = time.perf_counter()
        floor(big_pk)
        timings["floor"].append(time.perf_counter() - started)
    result: dict[str, Any] = {
        "database": connection.vendor,
        "listings_of_the_company": len(big_ids),
        "reference_listings": len(small_ids),
        "samples": len(chosen_big),
        "max_candidates": MAX_CANDIDATES,
        "fingerprints": written,
        "fingerprint_rows": ListingFingerprint.objects.count(),
        "band_rows": ListingFingerprintBand.objects.count(),
        "fingerprints_per_s": round(written / build_seconds, 1) if build_seconds else None,
        "storage_mb": _table_mb(
            [ListingFingerprint._meta.db_table, ListingFingerprintBand._meta.db_table]
        ),
        "with_a_likely_duplicate": round(sum(1 for n in found_counts if n) / len(found_counts), 3),
        **{name: _percentiles(values) for name, values in timings.items()},
    }
    result["ratio_p50_vs_reference"] = round(
        result["check_100k"]["p50_ms"] / max(result["check_reference"]["p50_ms"], 1e-6), 2
    )
    result["goal_p95_ms"] = 20
    result["goal_met"] = result["check_100k"]["p95_ms"] <= 20
    say(f"  {result['check_100k']} (reference {result['check_reference']})")
    return result


# --- the report ----------------------------------------------------------------------------


def _prf_cell(scores: dict[str, Any] | None) -> str:
    if not scores:
        return "-"
    return f"{scores['precision']:.3f} / {scores['recall']:.3f} / {scores['f1']:.3f}"


def markdown(report: dict[str, Any]) -> str:
    lines = [f"# Near-duplicate listings, {report['started']}", ""]
    lines.append(f"{report['machine']}; {report.get('seconds', 0):.0f} s in all.")
    quality_part = report.get("quality")
    if quality_part:
        pipe = quality_part["pipeline"]
        scheme = pipe["scheme"]
        lines += [
            "",
            "## Quality on `entity_matching` (precision / recall / F1)",
            "",
            f"Pairs: {json.dumps(quality_part['pairs'])}. Thresholds chosen on the pooled "
            "train splits; valid splits reported (no set has a test split).",
            "",
            f"### The shipped pipeline: MinHash ({scheme['num_perm']} values), LSH "
            f"{scheme['bands']} bands x {scheme['rows']} rows, codes x{scheme['code_weight']}, "
            f"threshold {pipe['threshold']}",
            "",
            "| split | " + " | ".join(SETS) + " | pooled |",
            "|---|" + "---|" * (len(SETS) + 1),
        ]
        for split in SPLITS:
            if split in pipe:
                label = f"{split} (held out)" if split == "test" else split
                cells = [_prf_cell(pipe[split].get(name)) for name in (*SETS, "pooled")]
                lines.append(f"| {label} | " + " | ".join(cells) + " |")
        lines += [
            "",
            f"Fingerprinting: {pipe['fingerprint_ms']} ms a listing.",
            "",
            "### Shingle schemes (exact Jaccard; threshold from train)",
            "",
            "| scheme | threshold | train F1 | valid P / R / F1 | "
            + " | ".join(f"valid F1 {name}" for name in SETS)
            + " |",
            "|---|---|---|---|" + "---|" * len(SETS),
        ]
        for row in quality_part["schemes"]:
            valid = row["valid"]
            lines.append(
                f"| {row['scheme']} | {row['threshold']} | {row['train']['pooled']['f1']:.3f} | "
                f"{_prf_cell(valid['pooled'])} | "
                + " | ".join(f"{valid[name]['f1']:.3f}" if name in valid else "-" for name in SETS)
                + " |"
            )
        lines += [
            "",
            "### LSH banding (all pairs, estimate from the shipped signature)",
            "",
            "| bands x rows | pairs at or above the threshold sharing a band | pairs below it |",
            "|---|---|---|",
        ]
        for row in pipe["bandings"]:
            mark = " (shipped)" if row["shipped"] else ""
            lines.append(
                f"| {row['bands']} x {row['rows']}{mark} | "
                f"{row['candidates_at_or_above_threshold']:.2%} | "
                f"{row['candidates_below_threshold']:.2%} |"
            )
        for chinese in quality_part.get("chinese", []):
            lines += [
                "",
                f"### Chinese, synthetic: {chinese['copies']} simplified copies of real "
                f"traditional titles reworded {chinese['copies_reworded']}, "
                f"{chinese['pairs'] - chinese['copies']} nearest other real titles; threshold "
                f"{chinese['threshold']}",
                "",
                "| scheme | P / R / F1 | median similarity: copy | nearest other title |",
                "|---|---|---|---|",
            ]
            for row in chinese["schemes"]:
                lines.append(
                    f"| {row['scheme']} | {_prf_cell(row)} | {row['median_copy_similarity']} | "
                    f"{row['median_nearest_other_similarity']} |"
                )
    timing = report.get("speed")
    if timing:
        big, ref, floor = timing["check_100k"], timing["check_reference"], timing["floor"]
        lines += [
            "",
            f"## Publish check at {timing['listings_of_the_company']:,} listings of one company "
            f"({timing['database']})",
            "",
            f"{timing['samples']} checks of the company's own listings (each excluded from its "
            "own check; timed from the product held, as `product_publish` holds it), "
            "interleaved with the reference and the floor. Times in ms.",
            "",
            "| | p50 | p95 | p99 | mean |",
            "|---|---|---|---|---|",
            f"| check, {timing['listings_of_the_company']:,} listings | {big['p50_ms']} | "
            f"{big['p95_ms']} | {big['p99_ms']} | {big['mean_ms']} |",
            f"| reference: check, {timing['reference_listings']:,} listings | {ref['p50_ms']} | "
            f"{ref['p95_ms']} | {ref['p99_ms']} | {ref['mean_ms']} |",
            f"| floor: one title by primary key | {floor['p50_ms']} | {floor['p95_ms']} | "
            f"{floor['p99_ms']} | {floor['mean_ms']} |",
            "",
            f"- p50 against the reference: {timing['ratio_p50_vs_reference']}x; goal p95 <= "
            f"{timing['goal_p95_ms']} ms: {'met' if timing['goal_met'] else 'NOT met'}.",
            f"- {timing['fingerprints']:,} fingerprints, built at "
            f"{timing['fingerprints_per_s'] or '(reused: not measured)'} a second; "
            f"{timing['band_rows']:,} band rows; "
            f"{timing['storage_mb'] if timing['storage_mb'] is not None else '?'} MB on disk.",
            f"- {timing['with_a_likely_duplicate']:.1%} of the sampled generated listings have a "
            "likely duplicate in their company (the generator writes titles from one small "
            "vocabulary).",
        ]
    return "\n".join(lines) + "\n"


def write_report(report: dict[str, Any], results_dir: Path = RESULTS_DIR) -> tuple[Path, Path]:
    results_dir.mkdir(parents=True, exist_ok=True)
    stamp = report["started"].replace(":", "").replace("-", "")[:15]
    json_path = results_dir / f"duplicates-{stamp}.json"
    json_path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", "utf-8")
    md_path = results_dir / f"duplicates-{stamp}.md"
    text = markdown(report)
    md_path.write_text(text, "utf-8")
    (results_dir / "duplicates-latest.md").write_text(text, "utf-8")
    return json_path, md_path


@dataclass
class Options:
    data_dir: Path = DEFAULT_DATA_DIR
    products: int = 100_000
    reference: int = 1_000
    samples: int = 300
    seed: int = 1
    workers: int = 1
    quality: bool = True
    timing: bool = True
    reuse: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def run(options: Options, say: Say) -> dict[str, Any]:
    import os
    import platform
    from datetime import UTC, datetime

    report: dict[str, Any] = {
        "started": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": (
            f"{os.cpu_count()} CPUs, {platform.machine()}, Python {platform.python_version()}"
        ),
    }
    started = time.perf_counter()
    if options.quality:
        report["quality"] = quality(options.data_dir, say)
    if options.timing:
        report["speed"] = speed(
            products=options.products,
            reference=options.reference,
            samples=options.samples,
            seed=options.seed,
            workers=options.workers,
            say=say,
            reuse=options.reuse,
        )
    report["seconds"] = round(time.perf_counter() - started, 1)
    return report
