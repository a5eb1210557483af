"""The search benchmark behind `tradepost bench search` (see bench/README.md).

It measures, on one generated catalogue and one index:
  (a) the search service: `search_products` (analysis, glossary expansion, filters, facets,
      hydrating the 20 results from the database);
  (b) raw tantivy on the same index running the very queries the service builds (analysed,
      expanded, with the same filters and facet aggregations, all prepared beforehand): the
      engine's own cost, the reference;
  (c) SQLite FTS5 over the same analysed words (a table built from the index's documents in
      a separate SQLite file), filters and facets in SQL: the in-database baseline;
  (d) the floor: tantivy's top 10 by BM25 on the title words alone, an OR of the query's
      analysed words, nothing else (no count, filters, facets, expansion or phrases): the
      cheapest search for those words, which the service's time is reported against;
and the HTTP search endpoint beside /healthz on one server, under concurrent clients.

Timings are per query; each round runs every query once per method, rounds interleave the
methods so that noise hits them alike, and the percentiles are over all rounds' samples.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import math
import os
import platform
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bench.load_bench import RAISED_LIMITS
from tradepost.core.forking import forked_pool

BENCH_DIR = Path(__file__).resolve().parent
QUERIES_FILE = BENCH_DIR / "search_queries.json"
RESULTS_DIR = BENCH_DIR / "results"
PER_PAGE = 20


# --- the query set ----------------------------------------------------------------------------


@dataclass(frozen=True)
class BenchQuery:
    klass: str  # "common", ..., with "+f" when filtered and faceted
    text: str
    filters: dict[str, Any]
    facets: bool


def load_queries(path: Path = QUERIES_FILE, *, limit: int | None = None) -> list[BenchQuery]:
    """Every query as typed, and again with a filter set and facets. `limit` keeps the first
    queries of each class (at least one)."""
    data = json.loads(path.read_text("utf-8"))
    filter_sets = data["filters"]
    queries: list[BenchQuery] = []
    for klass, texts in data["classes"].items():
        chosen = texts if limit is None else texts[: max(1, limit)]
        for position, text in enumerate(chosen):
            queries.append(BenchQuery(klass, text, {}, False))
            filters = filter_sets[position % len(filter_sets)]
            queries.append(BenchQuery(f"{klass}+f", text, filters, True))
    return queries


def product_filters(values: dict[str, Any]) -> Any:
    from tradepost.search.selectors import ProductFilters

    return ProductFilters(
        countries=tuple(values.get("countries", ())),
        verified_only=bool(values.get("verified_only", False)),
        languages=tuple(values.get("languages", ())),
        incoterms=tuple(values.get("incoterms", ())),
        moq_max=values.get("moq_max"),
        price_min_usd=values.get("price_min_usd"),
        price_max_usd=values.get("price_max_usd"),
        lead_time_max=values.get("lead_time_max"),
    )


# --- statistics -------------------------------------------------------------------------------


def percentile(samples: list[float], fraction: float) -> float:
    """Nearest-rank percentile (no interpolation); 0 for no samples."""
    if not samples:
        return 0.0
    ordered = sorted(samples)
    rank = max(1, min(len(ordered), math.ceil(fraction * len(ordered))))
    return ordered[rank - 1]


def summary(samples: list[float]) -> dict[str, float]:
    return {
        "n": len(samples),
        "p50": round(percentile(samples, 0.50), 3),
        "p95": round(percentile(samples, 0.95), 3),
        "p99": round(percentile(samples, 0.99), 3),
        "mean": round(statistics.fmean(samples), 3) if samples else 0.0,
    }


# --- (b) raw tantivy --------------------------------------------------------------------------


@dataclass
class Analysed:
    """A query analysed once, before any timing: what (b) and (c) search for."""

    words: list[str]
    alternatives: list[list[str]]  # the glossary expansion's translations
    phrases: list[list[str]]


def analyse(text: str) -> Analysed:
    from tradepost.search.analysis import analyze_query
    from tradepost.search.querying import usable
    from tradepost.search.selectors import expand

    analyzed = analyze_query(text)
    expansion = expand(text, analyzed)
    translations = {
        tuple(usable(t.tokens)): None for ts in expansion.translations.values() for t in ts
    }
    return Analysed(
        words=usable(analyzed.words),
        alternatives=[list(tokens) for tokens in translations if tokens],
        phrases=[usable(p) for p in analyzed.phrases if len(usable(p)) >= 2],
    )


class RawTantivy:
    """The reference: the very queries the service builds for a search (analysed, expanded,
    filters and facet aggregations included, prepared before any timing), run straight on
    tantivy: the search for the page's 20 ids with the total, and each aggregation (on
    other threads while the search runs, as the service does). No analysis, no query
    building, no hydration, no facet labels, no cache."""

    def __init__(self) -> None:
        from concurrent.futures import ThreadPoolExecutor

        from tradepost.search.index import searcher

        self.searcher = searcher
        self.pool = ThreadPoolExecutor(max(2, os.cpu_count() or 2))

    def build(self, query: BenchQuery) -> tuple[Any, list[tuple[Any, dict[str, Any]]]]:
        from tradepost.search.selectors import product_search_requests

        return product_search_requests(query.text, product_filters(query.filters))

    def run(self, prepared: tuple[Any, list[tuple[Any, dict[str, Any]]]], facets: bool) -> int:
        search_query, facet_requests = prepared
        searcher = self.searcher()
        pending = [
            self.pool.submit(searcher.aggregate, query, aggregations)
            for query, aggregations in (facet_requests if facets else [])
        ]
        result = searcher.search(search_query, PER_PAGE, count=True, weight_by_field="boost")
        addresses = [address for _score, address in result.hits]
        if addresses:
            searcher.fast_field_values("id", addresses)
        for future in pending:
            future.result()
        return int(result.count or 0)


# --- (d) the floor ---------------------------------------------------------------------------

#: The one field the floor searches, and how many hits it ranks.
FLOOR_FIELD = "title_words"
FLOOR_LIMIT = 10


def floor_query(text: str) -> Any:
    """An OR of the query's analysed words (usable ones, no expansion) in the title words,
    no minimum; all documents for a query without such words (an empty query)."""
    from tantivy import Occur, Query

    from tradepost.search.analysis import analyze_query
    from tradepost.search.index import schema
    from tradepost.search.querying import usable

    words = usable(analyze_query(text).words)
    if not words:
        return Query.all_query()
    terms = [Query.term_query(schema(), FLOOR_FIELD, word) for word in words]
    if len(terms) == 1:
        return terms[0]
    return Query.boolean_query([(Occur.Should, term) for term in terms])


class Floor:
    """The cheapest thing the engine can do for a query's words: the top 10 of a prepared
    `floor_query` by BM25, without counting the matches or reading any stored value."""

    def __init__(self) -> None:
        from tradepost.search.index import searcher

        self.searcher = searcher

    def run(self, query: Any) -> int:
        """The number of hits ranked (at most FLOOR_LIMIT: no total is counted)."""
        return len(self.searcher().search(query, FLOOR_LIMIT, count=False).hits)


# --- (c) SQLite FTS5 --------------------------------------------------------------------------

FTS_TOKENCHARS = ".-_/%+#&"

_fts_shared: Any = None


def _fts_start() -> None:
    from django.db import connections

    from tradepost.search.documents import CategoryTree
    from tradepost.search.index import Shared

    global _fts_shared
    connections.close_all()
    _fts_shared = Shared(CategoryTree.load())


def _fts_rows(bounds: tuple[int, int]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    from tradepost.search.documents import load_published_product_range
    from tradepost.search.index import product_fields

    docs, meta = [], []
    for record in load_published_product_range(*bounds):
        fields = product_fields(record, _fts_shared)
        docs.append(
            (fields["id"], fields["title_words"], fields["extra_words"], fields["desc_words"])
        )
        meta.append(
            (
                fields["id"],
                fields.get("country"),
                fields.get("language"),
                1 if fields.get("verified") else 0,
                fields.get("moq"),
                fields.get("price_min_usd"),
                fields.get("price_max_usd"),
                fields.get("lead_time"),
                fields.get("cat1"),
                " ".join(fields.get("incoterms") or []),
            )
        )
    return docs, meta


def build_fts(
    path: Path, *, workers: int = 1, on_progress: Callable[[int], None] | None = None
) -> dict[str, Any]:
    """An FTS5 table of the index's analysed words for every published product, and a table
    of the filter and facet fields, in a separate SQLite file."""
    if path.exists():
        path.unlink()
    started = time.perf_counter()
    db = sqlite3.connect(path)
    db.executescript(
        f"""
        PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
        CREATE VIRTUAL TABLE docs USING fts5(
            title, extra, descr,
            tokenize="unicode61 remove_diacritics 0 tokenchars '{FTS_TOKENCHARS}'"
        );
        CREATE TABLE meta (
            id INTEGER PRIMARY KEY, country TEXT, language TEXT, verified INTEGER,
            moq REAL, price_min_usd REAL, price_max_usd REAL, lead_time INTEGER,
            cat1 INTEGER, incoterms TEXT
        );
        """
    )
    from django.db import connections

    from tradepost.search.documents import CategoryTree, published_product_id_ranges
    from tradepost.search.index import Shared

    count = 0

    def insert(docs: list[tuple[Any, ...]], meta: list[tuple[Any, ...]]) -> None:
        nonlocal count
        db.executemany("INSERT INTO docs(rowid, title, extra, descr) VALUES (?, ?, ?, ?)", docs)
        db.executemany("INSERT INTO meta VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", meta)
        count += len(docs)
        if on_progress is not None:
            on_progress(len(docs))

    ranges = published_product_id_ranges()
    if workers <= 1:  # in this process (and its database connection)
        global _fts_shared
        _fts_shared = Shared(CategoryTree.load())
        for bounds in ranges:
            insert(*_fts_rows(bounds))
    else:
        connections.close_all()
        with forked_pool(workers, initializer=_fts_start) as pool:
            for docs, meta in pool.imap(_fts_rows, ranges):
                insert(docs, meta)
    db.commit()
    db.execute("INSERT INTO docs(docs) VALUES ('optimize')")
    db.commit()
    db.close()
    seconds = time.perf_counter() - started
    return {
        "products": count,
        "seconds": round(seconds, 2),
        "products_per_s": round(count / seconds, 1) if seconds else 0.0,
        "size_mb": round(path.stat().st_size / 1e6, 1),
    }


def _fts_string(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def fts_match(analysed: Analysed) -> str:
    def conjunction(tokens: list[str]) -> str:
        return "(" + " AND ".join(_fts_string(t) for t in tokens) + ")"

    options = []
    if analysed.words:
        options.append(conjunction(analysed.words))
    options.extend(conjunction(tokens) for tokens in analysed.alternatives)
    return " OR ".join(options)


class Fts5:
    FACETS = ("country", "language", "verified", "cat1")

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path, check_same_thread=False)
        self.db.execute("PRAGMA cache_size=-262144")

    @staticmethod
    def where(filters: dict[str, Any]) -> tuple[str, list[Any]]:
        clauses, params = [], []
        for name, column in (("countries", "country"), ("languages", "language")):
            if filters.get(name):
                clauses.append(f"m.{column} IN ({', '.join('?' * len(filters[name]))})")
                params.extend(filters[name])
        if filters.get("verified_only"):
            clauses.append("m.verified = 1")
        for name, column, op in (
            ("moq_max", "moq", "<="),
            ("price_min_usd", "price_max_usd", ">="),
            ("price_max_usd", "price_min_usd", "<="),
            ("lead_time_max", "lead_time", "<="),
        ):
            if filters.get(name) is not None:
                clauses.append(f"m.{column} {op} ?")
                params.append(filters[name])
        return " AND ".join(clauses), params

    def run(self, match: str, filters: dict[str, Any], facets: bool) -> int:
        condition, params = self.where(filters)
        extra = f" AND {condition}" if condition else ""
        if not match:
            return 0
        matched = (
            "SELECT docs.rowid AS id, bm25(docs, 3.0, 1.5, 1.0) AS score FROM docs "
            "JOIN meta m ON m.id = docs.rowid WHERE docs MATCH ?" + extra
        )
        args = [match, *params]
        self.db.execute(f"SELECT id FROM ({matched}) ORDER BY score LIMIT {PER_PAGE}", args)
        total = self.db.execute(f"SELECT count(*) FROM ({matched})", args).fetchone()[0]
        if facets:
            for column in self.FACETS:
                self.db.execute(
                    f"SELECT m.{column}, count(*) FROM docs JOIN meta m ON m.id = docs.rowid "
                    f"WHERE docs MATCH ?{extra} GROUP BY m.{column}",
                    args,
                ).fetchall()
        return int(total)


# --- the in-process run -----------------------------------------------------------------------


@dataclass
class ProcessResults:
    samples: dict[str, dict[str, list[float]]] = field(default_factory=dict)  # method->class
    totals: dict[str, list[int]] = field(default_factory=dict)

    def add(self, method: str, klass: str, ms: float) -> None:
        by_class = self.samples.setdefault(method, {})
        by_class.setdefault(klass, []).append(ms)
        by_class.setdefault("all", []).append(ms)


def run_queries(
    queries: list[BenchQuery], *, rounds: int, fts_path: Path | None, language: str = "en"
) -> ProcessResults:
    from tradepost.search.selectors import forget_facet_counts, search_products

    raw = RawTantivy()
    floor = Floor()
    fts = Fts5(fts_path) if fts_path is not None else None
    prepared = []
    for query in queries:
        prepared.append(
            (
                query,
                product_filters(query.filters),
                raw.build(query),
                fts_match(analyse(query.text)) if fts is not None else "",
                floor_query(query.text),
            )
        )
    results = ProcessResults()

    def service(q: BenchQuery, filters: Any) -> int:
        return search_products(
            query=q.text, language=language, filters=filters, per_page=PER_PAGE,
            with_facets=q.facets,
        ).total  # fmt: skip

    methods: list[tuple[str, Callable[[Any], int]]] = [
        ("service", lambda p: service(p[0], p[1])),
        ("tantivy", lambda p: raw.run(p[2], p[0].facets)),
        ("floor", lambda p: floor.run(p[4])),
    ]
    if fts is not None:
        methods.append(("fts5", lambda p: fts.run(p[3], p[0].filters, p[0].facets)))
    # Each method runs the whole query set in turn (a block), not query by query, and the
    # FTS5 baseline runs after the others: an FTS5 query over a common word reads
    # hundreds of megabytes, and whatever ran after it found the processor's caches and
    # the index pages cold (interleaved query by query, the service ran after FTS5 in
    # every comparison and measured up to twice its time).
    for method, call in methods:  # warm-up: caches, the glossary, the page cache
        for item in prepared:
            total = call(item)
            results.totals.setdefault(method, []).append(total)
    compared = [m for m in methods if m[0] != "fts5"]
    baseline = [m for m in methods if m[0] == "fts5"]
    for group in (compared, baseline):
        for _round in range(rounds):
            for method, call in group:
                for item in prepared:
                    # Every round repeats the same searches: the service's facet-count
                    # cache would answer all but the first, so it starts empty each time.
                    forget_facet_counts()
                    started = time.perf_counter()
                    call(item)
                    results.add(method, item[0].klass, (time.perf_counter() - started) * 1000)
    return results


# --- HTTP -------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get(host: str, port: int, path: str, timeout: float = 10.0) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        for child in _children(todo.pop()):
            out.append(child)
            todo.append(child)
    return out


def memory_mb(pid: int, field: str = "VmRSS") -> float | None:
    """A memory line of `/proc/<pid>/status` in MB: `VmRSS` (resident), `RssAnon` (the
    process's own memory), `RssFile` (pages of mapped files: the index, which tantivy reads by
    mmap, sits in the page cache that every process on the machine shares)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def rss_mb(pid: int) -> float | None:
    return memory_mb(pid)


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


@dataclass
class LoadResult:
    requests: int
    errors: int
    seconds: float
    samples: list[float]
    #: How many answers were not a 200, by status ("no answer" when the request failed).
    failures: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "errors": self.errors,
            "requests_per_s": round(self.requests / self.seconds, 1) if self.seconds else 0.0,
            **{k: v for k, v in summary(self.samples).items() if k != "n"},
        }


def load(
    host: str, port: int, paths: list[str], *, clients: int, seconds: float, max_requests: int
) -> LoadResult:
    """`clients` threads, each on its own keep-alive connection, cycling through `paths`
    until `seconds` have passed or `max_requests` were sent in all."""
    lock = threading.Lock()
    samples: list[float] = []
    state = {"sent": 0, "errors": 0}
    failures: Counter[str] = Counter()
    deadline = time.perf_counter() + seconds

    def client(number: int) -> None:
        connection = http.client.HTTPConnection(host, port, timeout=30)
        position = number
        while time.perf_counter() < deadline:
            with lock:
                if state["sent"] >= max_requests:
                    break
                state["sent"] += 1
            path = paths[position % len(paths)]
            position += clients
            started = time.perf_counter()
            try:
                connection.request("GET", path)
                response = connection.getresponse()
                response.read()
                ok, status = response.status == 200, str(response.status)
            except (OSError, http.client.HTTPException):
                ok, status = False, "no answer"
                connection.close()
                connection = http.client.HTTPConnection(host, port, timeout=30)
            elapsed = (time.perf_counter() - started) * 1000
            with lock:
                if ok:
                    samples.append(elapsed)
                else:
                    state["errors"] += 1
                    failures[status] += 1
        connection.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return LoadResult(
        len(samples), state["errors"], time.perf_counter() - started, samples, dict(failures)
    )


SEARCH_ENDPOINTS = (
    ("/api/v1/search/products?q={q}", "api-search"),
    ("/en/search/?q={q}", "page-search"),
    ("/api/v1/products?q={q}", "api-products (placeholder: no search endpoint yet)"),
)


def run_http(
    queries: list[BenchQuery],
    *,
    home: Path,
    clients: int = 8,
    seconds: float = 10.0,
    max_requests: int = 20_000,
) -> dict[str, Any]:
    """Serve the bench home with `tradepost serve --no-worker` on a free loopback port and
    load the search endpoint and /healthz in turn; stop the server."""
    host, port = "127.0.0.1", free_port()
    env = {**os.environ, **RAISED_LIMITS, "TRADEPOST_HOME": str(home)}
    executable = Path(sys.executable).with_name("tradepost")
    server = subprocess.Popen(
        [str(executable), "serve", "--no-worker", "--host", host, "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.time() + 90
        while True:
            try:
                if _get(host, port, "/healthz", timeout=2)[0] == 200:
                    break
            except OSError:
                pass
            if time.time() > deadline or server.poll() is not None:
                return {"error": "the server did not start"}
            time.sleep(0.3)
        endpoint, label = None, ""
        for template, name in SEARCH_ENDPOINTS:
            status, _body = _get(host, port, template.format(q=quote("led")), timeout=60)
            if status == 200:
                endpoint, label = template, name
                break
        if endpoint is None:
            return {"error": "no search endpoint answered 200"}
        texts = list(dict.fromkeys(q.text for q in queries))
        paths = [endpoint.format(q=quote(text)) for text in texts]
        # Warm up every worker process (index, glossary, analysers).
        load(host, port, paths, clients=clients, seconds=max(2.0, seconds / 4), max_requests=400)
        load(host, port, ["/healthz"], clients=clients, seconds=1.0, max_requests=400)
        search = load(
            host, port, paths, clients=clients, seconds=seconds, max_requests=max_requests
        )
        health = load(
            host, port, ["/healthz"], clients=clients, seconds=seconds, max_requests=max_requests
        )
        for name, measured in (("search", search), ("/healthz", health)):
            if measured.errors:
                # A throughput with refusals in it measures the refusals: none is reported.
                return {
                    "error": f"{measured.errors} of {measured.requests + measured.errors} "
                    f"{name} requests were not answered 200 ({measured.failures}): no "
                    "throughput is reported"
                }
        gunicorn = [pid for pid in _descendants(server.pid) if "gunicorn" in _cmdline(pid)]
        masters = set(_children(server.pid))
        rss = {f"{'master' if pid in masters else 'worker'} {pid}": rss_mb(pid) for pid in gunicorn}
        worker_rss = [v for k, v in rss.items() if k.startswith("worker") and v is not None]
        workers = [pid for pid in gunicorn if pid not in masters]
        largest = max(workers, key=lambda pid: rss_mb(pid) or 0.0, default=None)
        result = {
            "endpoint": label,
            "path": endpoint,
            "clients": clients,
            "search": search.as_dict(),
            "healthz": health.as_dict(),
            "rss_mb": rss,
            "max_worker_rss_mb": max(worker_rss, default=None),
            # Of the largest worker: its own memory, and the mapped index and code files.
            "max_worker_anon_mb": memory_mb(largest, "RssAnon") if largest else None,
            "max_worker_file_mb": memory_mb(largest, "RssFile") if largest else None,
        }
        if health.requests:
            result["search_vs_healthz_rps"] = round(search.requests / max(1, health.requests), 3)
        return result
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


# --- report -----------------------------------------------------------------------------------


def directory_mb(path: Path) -> float:
    total = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    return round(total / 1e6, 1)


def ratio(numerator: float, denominator: float) -> float | None:
    return round(numerator / denominator, 2) if denominator else None


def class_table(results: ProcessResults) -> list[dict[str, Any]]:
    classes: list[str] = []
    for by_class in results.samples.values():
        for klass in by_class:
            if klass not in classes:
                classes.append(klass)
    classes.sort(key=lambda k: (k == "all", k.replace("+f", "~")))
    rows = []
    for klass in classes:
        row: dict[str, Any] = {"class": klass}
        for method, by_class in results.samples.items():
            row[method] = summary(by_class.get(klass, []))
        if "service" in row and "tantivy" in row and row["tantivy"]["p95"]:
            row["service_vs_tantivy_p95"] = round(row["service"]["p95"] / row["tantivy"]["p95"], 2)
        if "service" in row and "floor" in row:
            # From the exact percentiles: the floor's are tens of microseconds, and rounded
            # to the microsecond they would move the ratio by a few per cent.
            service, floor = results.samples["service"], results.samples["floor"]
            for stat, fraction in (("p50", 0.50), ("p95", 0.95)):
                row[f"service_vs_floor_{stat}"] = ratio(
                    percentile(service.get(klass, []), fraction),
                    percentile(floor.get(klass, []), fraction),
                )
        rows.append(row)
    return rows


def versus_floor(classes: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Service and floor over all queries (the "all" row: percentiles of every sample, not
    of the classes' percentiles), with the ratios; None when the floor was not timed."""
    row = next((r for r in classes if r["class"] == "all"), None)
    if row is None or "service" not in row or "floor" not in row:
        return None
    return {
        "service": row["service"],
        "floor": row["floor"],
        "service_vs_floor_p50": row.get("service_vs_floor_p50"),
        "service_vs_floor_p95": row.get("service_vs_floor_p95"),
    }


def markdown(report: dict[str, Any]) -> str:
    lines = [
        f"# Search benchmark, {report['started']}",
        "",
        f"{report['products']:,} published products, {report['machine']}, database "
        f"{report['database']}; {report['queries']} queries x {report['rounds']} rounds "
        "(after a warm-up round); times in ms.",
        "",
    ]
    generate = report.get("generate")
    if generate:
        lines.append(
            f"- generate: {generate['products']:,} products in {generate['seconds']} s "
            f"({generate['products_per_s']:,.0f} products/s)"
        )
    build = report["index"]
    if build.get("workers"):
        lines.append(
            f"- index rebuild: {build['seconds']} s ({build['products_per_s']:,.0f} products/s, "
            f"{build['workers']} analysis processes), {build['size_mb']} MB on disk"
        )
    else:
        lines.append(f"- index kept (--no-rebuild), {build['size_mb']} MB on disk")
    fts = report.get("fts5")
    if fts and fts.get("kept"):
        lines.append(f"- FTS5 baseline kept from the build of this index, {fts['size_mb']} MB")
    elif fts:
        lines.append(
            f"- FTS5 build (from the analysed documents): {fts['seconds']} s "
            f"({fts['products_per_s']:,.0f} products/s), {fts['size_mb']} MB"
        )

    def cell(stats: dict[str, float] | None, digits: int = 2) -> str:
        if not stats:
            return "-"
        return " / ".join(f"{stats[p]:.{digits}f}" for p in ("p50", "p95", "p99"))

    def times(value: float | None) -> str:
        return "-" if value is None else f"{value:.1f}x"

    overall = versus_floor(report["classes"])
    if overall:
        lines += [
            "",
            f"All queries: service p50 / p95 / p99 {cell(overall['service'])}, floor "
            f"{cell(overall['floor'], 3)}; service / floor: "
            f"p50 {times(overall['service_vs_floor_p50'])}, "
            f"p95 {times(overall['service_vs_floor_p95'])}.",
        ]
    lines += [
        "",
        "| class | service p50 / p95 / p99 | tantivy p50 / p95 / p99 | floor p50 / p95 / p99 "
        "| FTS5 p50 / p95 / p99 | service / tantivy p95 | service / floor p50, p95 |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in report["classes"]:
        versus = "-"
        if "service_vs_floor_p50" in row:
            versus = f"{times(row['service_vs_floor_p50'])}, {times(row['service_vs_floor_p95'])}"
        lines.append(
            f"| {row['class']} | {cell(row.get('service'))} | {cell(row.get('tantivy'))} | "
            f"{cell(row.get('floor'), 3)} | {cell(row.get('fts5'))} | "
            f"{row.get('service_vs_tantivy_p95', '-')} | {versus} |"
        )
    lines.append("")
    lines.append("`+f`: with a filter set and facets. (b) tantivy: the service's own queries "
                 "and aggregations, prepared beforehand, run on the same index (no analysis, "
                 "hydration or cache). Floor: the top 10 by BM25 of an OR of the analysed "
                 "words in the title words alone, prepared beforehand (no count, filters, "
                 "facets, expansion or phrases; everything for an empty query): the same for "
                 "a class and its `+f`. The service's facet cache is emptied before every "
                 "timed search.")  # fmt: skip
    web = report.get("http")
    if web:
        lines.append("")
        if "error" in web:
            lines.append(f"HTTP: {web['error']}")
        else:
            search, health = web["search"], web["healthz"]
            lines += [
                f"HTTP, {web['clients']} concurrent clients, `{web['path']}` ({web['endpoint']}):",
                "",
                "| endpoint | requests/s | p50 | p95 | errors |",
                "|---|---|---|---|---|",
                f"| search | {search['requests_per_s']} | {search['p50']} | {search['p95']} | "
                f"{search['errors']} |",
                f"| /healthz | {health['requests_per_s']} | {health['p50']} | {health['p95']} | "
                f"{health['errors']} |",
                "",
                f"search / healthz requests/s: {web.get('search_vs_healthz_rps')}; "
                f"largest serving worker's RSS: {web['max_worker_rss_mb']} MB, of which its own "
                f"memory (RssAnon) {web.get('max_worker_anon_mb')} MB and mapped files "
                f"(RssFile: the index and code, shared page cache) "
                f"{web.get('max_worker_file_mb')} MB (all gunicorn processes, MB: "
                f"{web['rss_mb']})",
            ]
    return "\n".join(lines) + "\n"


def write_report(report: dict[str, Any], directory: Path) -> tuple[Path, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    stamp = report["started"].replace(":", "").replace("-", "")[:15]
    name = f"search-{report['products']}-{stamp}"
    json_path = directory / f"{name}.json"
    overall = versus_floor(report.get("classes", []))
    data = {**report, "versus_floor": overall} if overall else report
    json_path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", "utf-8")
    text = markdown(report)
    (directory / f"{name}.md").write_text(text, "utf-8")
    latest = directory / "latest.md"
    latest.write_text(text, "utf-8")
    return json_path, latest


def machine() -> str:
    return f"{os.cpu_count()} CPUs, {platform.machine()}, Python {platform.python_version()}"


def now_stamp() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
