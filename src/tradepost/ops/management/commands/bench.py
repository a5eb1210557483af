"""`tradepost bench search`, `relevance`, `translation` and the others (their code is in bench/).

`search` generates a catalogue in TRADEPOST_HOME (or reuses the one there with --reuse),
rebuilds the index, builds an FTS5 baseline, times the query set in this process and over
HTTP, and writes JSON and markdown to bench/results/. Not a test: run it on a quiet machine.

`relevance` indexes each judged set of `../shared/data/relevance/` as listings, runs every
query through the search service and through plain BM25 in the same run, and writes MRR@10,
R@1, R@10 and the zero-result share to bench/results/ (in an empty TRADEPOST_HOME).

`translation` translates the English/Chinese title pairs of the relevance data (or any TSV of
the same shape, `--pairs`) both ways and writes chrF, BLEU, time per title and the share of
words left untranslated, beside the untranslated text and a plain gloss.
"""

from __future__ import annotations

import importlib
import json
import sys
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tradepost.catalog.models import Product, ProductStatus
from tradepost.demo.bulk import default_workers, generate_catalogue
from tradepost.demo.generator import DEFAULT_SEED
from tradepost.search.index import IndexBusy, index_dir, index_root
from tradepost.search.indexer import rebuild_now

#: The source checkout's bench/ folder (the benchmark is not part of the installed package).
BENCH_DIR = Path(__file__).resolve().parents[5] / "bench"


def bench_module(name: str = "search_bench") -> Any:
    if not (BENCH_DIR / f"{name}.py").exists():
        raise CommandError(f"The benchmark code is not here: {BENCH_DIR} (a source checkout).")
    root = str(BENCH_DIR.parent)
    if root not in sys.path:
        sys.path.insert(0, root)
    try:
        return importlib.import_module(f"bench.{name}")
    except ModuleNotFoundError as error:  # locust and the rest are development tools
        if (error.name or "").startswith("bench"):
            raise
        raise CommandError(
            f"The benchmark needs {error.name}, a development tool: run `make install-dev`."
        ) from None


class Command(BaseCommand):
    help = (
        "Benchmark search. 'search': generate a catalogue (or reuse the one in "
        "TRADEPOST_HOME), rebuild the index, and time the fixed query set against the search "
        "service, raw tantivy, SQLite FTS5 and the HTTP endpoint. 'relevance': score the "
        "service and plain BM25 on the judged real queries of ../shared/data/relevance "
        "(in an empty TRADEPOST_HOME). 'translation': chrF and BLEU of the translation "
        "engine on English/Chinese title pairs. Results go to bench/results/."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "target",
            choices=[
                "search",
                "relevance",
                "translation",
                "load",
                "faults",
                "hydration",
                "duplicates",
                "alerts",
            ],
            help="What to benchmark.",
        )
        parser.add_argument(
            "--profiles",
            default="sqlite,postgres",
            help="load: sqlite (the default install) and/or postgres (PostgreSQL + Redis).",
        )
        parser.add_argument("--users", type=int, default=50, help="load: concurrent clients.")
        parser.add_argument("--duration", type=int, default=60, help="load: measured seconds.")
        parser.add_argument("--warmup", type=int, default=10, help="load: unmeasured seconds.")
        parser.add_argument(
            "--sets",
            default="zh,en,en_distractors",
            help="relevance, alerts: the judged sets to measure (comma-separated).",
        )
        parser.add_argument(
            "--data-dir", type=Path, default=None, help="relevance: the shared data folder."
        )
        parser.add_argument(
            "--split", default="dev", help="relevance: which half of each set (file suffix)."
        )
        parser.add_argument(
            "--scale",
            action="store_true",
            help="alerts: time percolation and digests at scale instead of the judged sets.",
        )
        parser.add_argument(
            "--saved", type=int, default=100_000, help="alerts --scale: saved searches."
        )
        parser.add_argument(
            "--latency",
            action="store_true",
            help="alerts: publish -> email time of 'as it happens' alerts with a worker running.",
        )
        parser.add_argument(
            "--titles", type=int, default=10_000, help="alerts --scale: new listings."
        )
        parser.add_argument(
            "--recipients",
            type=int,
            default=100_000,
            help="alerts --scale: people who get a digest.",
        )
        parser.add_argument(
            "--pairs",
            type=Path,
            default=None,
            help="translation: a TSV of English and Chinese titles (default: the dev pairs).",
        )
        parser.add_argument("--products", type=int, default=100_000)
        parser.add_argument("--companies", type=int, default=None)
        parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
        parser.add_argument(
            "--reuse",
            action="store_true",
            help="Use the products already in the database (generate only when there are none).",
        )
        parser.add_argument("--no-rebuild", action="store_true", help="Keep the current index.")
        parser.add_argument("--queries", type=Path, default=None, help="Query set (JSON).")
        parser.add_argument(
            "--per-class", type=int, default=None, help="Only the first N queries of each class."
        )
        parser.add_argument("--rounds", type=int, default=5, help="Timed rounds (default 5).")
        parser.add_argument("--no-fts", action="store_true", help="Skip the FTS5 baseline.")
        parser.add_argument("--no-http", action="store_true", help="Skip the HTTP load.")
        parser.add_argument("--http-seconds", type=float, default=10.0)
        parser.add_argument("--clients", type=int, default=8)
        parser.add_argument("--workers", type=int, default=None, help="Processes (default: CPUs).")
        parser.add_argument("--results-dir", type=Path, default=None)
        parser.add_argument(
            "--samples", type=int, default=300, help="duplicates: publish checks timed."
        )
        parser.add_argument(
            "--only",
            choices=["quality", "timing"],
            default=None,
            help="duplicates: only the quality on ../shared/data, or only the timing.",
        )

    def say(self, message: str) -> None:
        if self.verbosity > 0:
            self.stdout.write(message)
            self.stdout.flush()

    def handle(self, *args, **options):
        self.verbosity = options["verbosity"]
        targets = {
            "search": self.search,
            "relevance": self.relevance,
            "alerts": self.alerts,
            "translation": self.translation,
            "load": self.load,
            "faults": self.faults,
            "hydration": lambda _options: self.hydration(),
            "duplicates": self.duplicates,
        }
        targets[options["target"]](options)

    def faults(self, options: dict[str, Any]) -> None:
        bench_module("fault_drill").run(
            home_root=Path(settings.HOME),
            duration=options["duration"],
            results_dir=options["results_dir"] or bench_module("load_bench").RESULTS,
            log=self.say,
        )

    def search(self, options: dict[str, Any]) -> None:
        """Generate (or reuse) the catalogue, rebuild the index and the FTS5 baseline, time
        the query set in-process and over HTTP, write the report."""
        bench = bench_module()
        workers = max(1, options["workers"] or default_workers())
        report: dict[str, Any] = {
            "started": bench.now_stamp(),
            "machine": bench.machine(),
            "database": connection.vendor,
            "home": "TRADEPOST_HOME",
        }
        executor = MigrationExecutor(connection)
        if executor.migration_plan(executor.loader.graph.leaf_nodes()):
            call_command("migrate", verbosity=0)  # a fresh TRADEPOST_HOME
        report.update(self._catalogue(options, workers))
        report["index"] = self._index(options, workers, report["products"])
        report["index"]["size_mb"] = bench.directory_mb(index_dir())
        self.say(f"  {report['index']}")
        fts_path = None
        if not options["no_fts"]:
            fts_path = index_root() / "bench-fts5.sqlite3"
            if options["no_rebuild"] and fts_path.exists():
                # Built from the index, which is kept: the baseline still matches it.
                self.say("Keeping the FTS5 baseline…")
                report["fts5"] = {
                    "kept": True,
                    "size_mb": round(fts_path.stat().st_size / 2**20, 1),
                }
            else:
                self.say("Building the FTS5 baseline…")
                report["fts5"] = bench.build_fts(fts_path, workers=workers)
            self.say(f"  {report['fts5']}")
        queries = bench.load_queries(
            options["queries"] or bench.QUERIES_FILE, limit=options["per_class"]
        )
        report["queries"] = len(queries)
        report["rounds"] = max(1, options["rounds"])
        self.say(f"Timing {len(queries)} queries x {report['rounds']} rounds…")
        results = bench.run_queries(queries, rounds=report["rounds"], fts_path=fts_path)
        report["classes"] = bench.class_table(results)
        report["hits"] = {
            method: {"zero_hit_queries": sum(1 for t in totals if t == 0)}
            for method, totals in results.totals.items()
        }
        if not options["no_http"]:
            report["http"] = self._http(bench, queries, options)
        json_path, latest = bench.write_report(report, options["results_dir"] or bench.RESULTS_DIR)
        self.stdout.write(bench.markdown(report))
        self.stdout.write(f"Written {json_path} and {latest}")
        web = report.get("http") or {}
        if web.get("error") and not web["error"].startswith("skipped"):
            raise CommandError(f"HTTP: {web['error']}")

    def _catalogue(self, options: dict[str, Any], workers: int) -> dict[str, Any]:
        """The published products to search: generated into an empty database, or those
        already there with --reuse."""
        published = Product.objects.filter(status=ProductStatus.PUBLISHED)
        existing = published.count()
        if existing and not options["reuse"]:
            raise CommandError(
                f"The database already has {existing:,} published products: pass --reuse, or "
                "point TRADEPOST_HOME at an empty folder."
            )
        found: dict[str, Any] = {}
        if not existing:
            self.say(f"Generating {options['products']:,} products…")
            result = generate_catalogue(
                products=options["products"],
                companies=options["companies"],
                seed=options["seed"],
                outbox=False,
                workers=workers,
            )
            found["generate"] = {
                "products": result.products,
                "companies": result.companies,
                "seconds": round(result.seconds, 1),
                "products_per_s": round(result.products_per_second, 1),
            }
            self.say(f"  {result.products_per_second:,.0f} products/s")
        found["products"] = published.count()
        return found

    def _index(self, options: dict[str, Any], workers: int, products: int) -> dict[str, Any]:
        if options["no_rebuild"]:
            return {"seconds": 0, "products_per_s": 0, "workers": 0}
        self.say("Rebuilding the index…")
        started = time.perf_counter()
        try:
            rebuild_now(workers=workers)
        except IndexBusy as exc:
            raise CommandError("The index is held by another process.") from exc
        seconds = time.perf_counter() - started
        return {
            "seconds": round(seconds, 1),
            "products_per_s": round(products / seconds, 1),
            "workers": workers,
        }

    def _http(self, bench: Any, queries: Any, options: dict[str, Any]) -> dict[str, Any]:
        if connection.vendor == "sqlite" and "memory" in str(connection.settings_dict["NAME"]):
            return {"error": "skipped: in-memory database"}
        self.say("HTTP load…")
        return bench.run_http(  # type: ignore[no-any-return]
            queries,
            home=Path(settings.HOME),
            clients=options["clients"],
            seconds=options["http_seconds"],
        )

    def load(self, options: dict[str, Any]) -> None:
        bench = bench_module("load_bench")
        profiles = [p.strip() for p in options["profiles"].split(",") if p.strip()]
        unknown = [p for p in profiles if p not in bench.PROFILES]
        if unknown:
            raise CommandError(
                f"Unknown profiles: {', '.join(unknown)} ({', '.join(bench.PROFILES)})"
            )
        results = bench.run(
            profiles,
            home_root=Path(settings.HOME),
            users=options["users"],
            duration=options["duration"],
            warmup=options["warmup"],
            workers=options["workers"],
            results_dir=options["results_dir"] or bench.RESULTS,
            log=self.say,
        )
        self.stdout.write(bench.markdown(results, "this machine"))
        failed = {r["profile"]: r["total"]["failures"] for r in results if r["total"]["failures"]}
        if failed:
            # A throughput with failed requests in it is not a measurement (#25).
            raise CommandError(f"Requests failed under load (by profile): {failed}")

    def hydration(self) -> None:
        """Results pages built by hand against the ORM reference, on the catalogue in
        TRADEPOST_HOME (bench/hydration_bench.py)."""
        try:
            result = bench_module("hydration_bench").run()
        except RuntimeError as exc:
            raise CommandError(str(exc)) from exc
        hand, orm = result["hand_built"], result["orm"]
        self.stdout.write(
            f"{result['pages']} pages of {result['page_size']} among {result['products']:,} "
            f"products: hand-built p50 {hand['p50_ms']} ms / p95 {hand['p95_ms']} ms; ORM p50 "
            f"{orm['p50_ms']} ms / p95 {orm['p95_ms']} ms ({result['orm_over_hand_p50']}x, "
            f"{result['saved_p50_ms']} ms a page saved by hand)"
        )

    def duplicates(self, options: dict[str, Any]) -> None:
        """Near-duplicate detection: precision/recall/F1 on ../shared/data/entity_matching and
        the publish check's time at --products listings of one company, in an empty
        TRADEPOST_HOME (bench/duplicates_bench.py)."""
        bench = bench_module("duplicates_bench")
        data_dir = options["data_dir"] or bench.DEFAULT_DATA_DIR
        only = options["only"]
        if only != "timing" and not bench.available(data_dir):
            raise CommandError(f"The pairs are not here: {data_dir / 'entity_matching'}")
        if only != "quality":
            executor = MigrationExecutor(connection)
            if executor.migration_plan(executor.loader.graph.leaf_nodes()):
                call_command("migrate", verbosity=0)
        try:
            report = bench.run(
                bench.Options(
                    data_dir=data_dir,
                    products=options["products"],
                    samples=options["samples"],
                    seed=options["seed"],
                    workers=max(1, options["workers"] or default_workers()),
                    quality=only != "timing",
                    timing=only != "quality",
                    reuse=options["reuse"],
                ),
                say=self.say,
            )
        except RuntimeError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(bench.markdown(report))
        json_path, md_path = bench.write_report(report, options["results_dir"] or bench.RESULTS_DIR)
        self.stdout.write(f"Written {json_path} and {md_path}")

    def translation(self, options: dict[str, Any]) -> None:
        bench = bench_module("translation_bench")
        pairs_file = options["pairs"] or bench.DEFAULT_PAIRS
        if not pairs_file.is_file():
            raise CommandError(f"No pairs file here: {pairs_file}")
        pairs = bench.load_pairs(pairs_file)
        if not pairs:
            raise CommandError(f"{pairs_file} holds no English/Chinese pair.")
        started = bench_module().now_stamp()
        directions = bench.measure(pairs, say=self.say)
        self.stdout.write(
            bench.markdown(
                directions, pairs_file=pairs_file.name, count=len(pairs), started=started
            )
        )
        json_path, md_path = bench.write_report(
            directions,
            pairs_file=pairs_file.name,
            count=len(pairs),
            started=started,
            results_dir=options["results_dir"] or bench.RESULTS_DIR,
        )
        self.stdout.write(f"Written {json_path} and {md_path}")

    def relevance(self, options: dict[str, Any]) -> None:
        bench = bench_module("relevance_bench")
        data_dir = options["data_dir"] or bench.DEFAULT_DATA_DIR
        if not bench.available(data_dir):
            raise CommandError(f"The judged sets are not here: {data_dir / 'relevance'}")
        names = [n.strip() for n in options["sets"].split(",") if n.strip()]
        unknown = [n for n in names if n not in bench.SETS]
        if unknown:
            raise CommandError(f"Unknown sets: {', '.join(unknown)} (known: {bench.SETS})")
        executor = MigrationExecutor(connection)
        if executor.migration_plan(executor.loader.graph.leaf_nodes()):
            call_command("migrate", verbosity=0)
        started_at = bench_module().now_stamp()
        started = time.perf_counter()
        results = []
        for name in names:
            judged = bench.load_set(name, data_dir, options["split"])
            try:
                results.append(bench.measure(judged, say=self.say))
            except RuntimeError as exc:
                raise CommandError(str(exc)) from exc
        seconds = time.perf_counter() - started
        self.stdout.write(bench.markdown(results, started=started_at, seconds=seconds))
        json_path, md_path = bench.write_report(
            results,
            started=started_at,
            seconds=seconds,
            results_dir=options["results_dir"] or bench.RESULTS_DIR,
        )
        self.stdout.write(f"Written {json_path} and {md_path}")

    def alerts(self, options: dict[str, Any]) -> None:
        """Trade alerts on the judged sets: alert recall and noise beside plain BM25 with
        its best single threshold (`bench/alerts_bench.py`)."""
        if options["scale"]:
            self.alerts_scale(options)
            return
        if options["latency"]:
            executor = MigrationExecutor(connection)
            if executor.migration_plan(executor.loader.graph.leaf_nodes()):
                call_command("migrate", verbosity=0)
            result = bench_module("alerts_scale").latency(say=self.say)
            self.stdout.write(json.dumps(result))
            return
        bench = bench_module("alerts_bench")
        relevance = bench_module("relevance_bench")
        data_dir = options["data_dir"] or relevance.DEFAULT_DATA_DIR
        if not relevance.available(data_dir):
            raise CommandError(f"The judged sets are not here: {data_dir / 'relevance'}")
        names = [n.strip() for n in options["sets"].split(",") if n.strip()]
        unknown = [n for n in names if n not in bench.SETS]
        if unknown:
            raise CommandError(f"Unknown sets: {', '.join(unknown)} (known: {bench.SETS})")
        executor = MigrationExecutor(connection)
        if executor.migration_plan(executor.loader.graph.leaf_nodes()):
            call_command("migrate", verbosity=0)
        started_at = bench_module().now_stamp()
        results = []
        for name in names:
            judged = relevance.load_set(name, data_dir, options["split"])
            try:
                results.append(bench.measure_quality(judged, say=self.say))
            except RuntimeError as exc:
                raise CommandError(str(exc)) from exc
        self.stdout.write(bench.markdown(results, started=started_at, split=options["split"]))
        json_path, md_path = bench.write_report(
            results,
            started=started_at,
            split=options["split"],
            results_dir=options["results_dir"] or bench.RESULTS_DIR,
        )
        self.stdout.write(f"Written {json_path} and {md_path}")

    def alerts_scale(self, options: dict[str, Any]) -> None:
        scale = bench_module("alerts_scale")
        relevance = bench_module("relevance_bench")
        data_dir = options["data_dir"] or relevance.DEFAULT_DATA_DIR
        executor = MigrationExecutor(connection)
        if executor.migration_plan(executor.loader.graph.leaf_nodes()):
            call_command("migrate", verbosity=0)
        started_at = bench_module().now_stamp()
        try:
            result = scale.run(
                data_dir,
                saved=options["saved"],
                titles=options["titles"],
                recipients=min(options["recipients"], options["saved"]),
                say=self.say,
            )
        except RuntimeError as exc:
            raise CommandError(str(exc)) from exc
        text = scale.markdown(result, started=started_at)
        self.stdout.write(text)
        results_dir = options["results_dir"] or relevance.RESULTS_DIR
        results_dir.mkdir(parents=True, exist_ok=True)
        stamp = started_at.replace("-", "").replace(":", "")[:15]
        (results_dir / f"alerts-scale-{stamp}.json").write_text(
            json.dumps({"started": started_at, **result}, indent=1), encoding="utf-8"
        )
        (results_dir / "alerts-scale-latest.md").write_text(text, encoding="utf-8")
        self.stdout.write(f"Written {results_dir / 'alerts-scale-latest.md'}")
