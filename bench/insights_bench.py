"""What counting views and search words adds to the pages it counts (docs/adr/0018).

    .venv/bin/python -m bench.insights_bench [--rounds 400]

In one process, on a scratch SQLite database (WAL, as served): a few suppliers with published
listings, indexed. Each round requests, through the site's WSGI application (every
middleware), the product page and a search results page, once with counting on and once
with it off (alternating which goes first), as a browser (a counted User-Agent) that is not
signed in, and times
- **page**: from the call until the last byte of the body: what the visitor waits for;
- **after**: closing the response, which runs the counting write (the server does this after
  handing the body over);
- **total**: both, the work a server process does for the request.
The product page is timed rendered by its view (page cache off) and answered from the public
page cache (the cheapest page there is, so the largest share counting can take).
Medians and p95 in ms, and the ratios on/off, are printed and written to
bench/results/insights-<time>.json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BROWSER = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36"
)
RESULTS = Path(__file__).resolve().parent / "results"


def _setup(home: str) -> None:
    os.environ["TRADEPOST_HOME"] = home
    os.environ["DJANGO_SETTINGS_MODULE"] = "tradepost.config.test_settings"
    os.environ["TRADEPOST_TASKS_BACKEND"] = "immediate"
    import django

    from tradepost.config.home import prepare_home

    prepare_home()
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _catalogue() -> tuple[str, str]:
    """Five suppliers with four listings each, indexed; answers a product page's path and a
    search's query string."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from django.utils import translation

    from tests.factories.catalog import make_product
    from tests.factories.companies import make_company
    from tradepost.search.indexer import apply_outbox

    products = []
    for n in range(5):
        company = make_company(country="CN", legal_name=f"Bench Supplier {n}")
        for m in range(4):
            products.append(
                make_product(company=company, title=f"Stainless steel vacuum flask {n}-{m}")
            )
    apply_outbox()
    with translation.override("en"):
        path = products[0].get_absolute_url()
    return path, "q=stainless+steel+vacuum+flask"


def _environ(path: str, query: str = "") -> dict[str, Any]:
    from wsgiref.util import setup_testing_defaults

    environ: dict[str, Any] = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "HTTP_HOST": "127.0.0.1",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "80",
        "HTTP_USER_AGENT": BROWSER,
        "HTTP_ACCEPT_LANGUAGE": "en",
    }
    setup_testing_defaults(environ)
    return environ


def _once(app: Any, path: str, query: str) -> tuple[float, float]:
    """(page ms, after ms) of one request."""
    status: list[str] = []

    def start_response(code: str, headers: list, exc_info: Any = None) -> None:
        status.append(code)

    started = time.perf_counter()
    result = app(_environ(path, query), start_response)
    body = b"".join(result)
    answered = time.perf_counter()
    result.close()
    closed = time.perf_counter()
    if not status or not status[0].startswith("200") or not body:
        raise RuntimeError(f"{path}?{query}: {status}")
    return (answered - started) * 1000, (closed - answered) * 1000


def _stats(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50": round(statistics.median(ordered), 3),
        "p95": round(ordered[int(len(ordered) * 0.95) - 1], 3),
    }


def run(rounds: int) -> dict[str, Any]:
    from django.conf import settings
    from django.core.cache import cache
    from django.core.wsgi import get_wsgi_application

    from tradepost.insights.models import ProductViewDay, SearchWordDay

    product_path, search_query = _catalogue()
    app = get_wsgi_application()
    scenarios = {
        "product page": (product_path, "", 0),
        "product page from the page cache": (product_path, "", 300),
        "search results": ("/en/search/", search_query, 0),
    }
    report: dict[str, Any] = {"rounds": rounds, "scenarios": {}}
    for name, (path, query, cache_seconds) in scenarios.items():
        settings.TRADEPOST_PAGE_CACHE_SECONDS = cache_seconds
        cache.clear()
        samples: dict[bool, dict[str, list[float]]] = {
            mode: {"page": [], "after": [], "total": []} for mode in (True, False)
        }
        for warm in range(20):  # templates, connections, segmenter, the cache's first answer
            settings.TRADEPOST_INSIGHTS_COUNTING = bool(warm % 2)
            _once(app, path, query)
        for round_number in range(rounds):
            order = (True, False) if round_number % 2 else (False, True)
            for counting in order:
                settings.TRADEPOST_INSIGHTS_COUNTING = counting
                page, after = _once(app, path, query)
                samples[counting]["page"].append(page)
                samples[counting]["after"].append(after)
                samples[counting]["total"].append(page + after)
        on = {part: _stats(values) for part, values in samples[True].items()}
        off = {part: _stats(values) for part, values in samples[False].items()}
        report["scenarios"][name] = {
            "counting_on_ms": on,
            "counting_off_ms": off,
            "ratio_page_p50": round(on["page"]["p50"] / off["page"]["p50"], 3),
            "ratio_total_p50": round(on["total"]["p50"] / off["total"]["p50"], 3),
            "ratio_total_p95": round(on["total"]["p95"] / off["total"]["p95"], 3),
            "added_total_p50_ms": round(on["total"]["p50"] - off["total"]["p50"], 3),
        }
    report["counted"] = {
        "product_views": sum(ProductViewDay.objects.values_list("count", flat=True)),
        "search_word_rows": SearchWordDay.objects.count(),
    }
    return report


def _markdown(report: dict[str, Any]) -> str:
    lines = [
        f"# Counting views and search words: on vs off ({report['rounds']} rounds each)",
        "",
        "| page | page p50 on / off | total p50 on / off | total p95 on / off | "
        "page ratio | total ratio p50 | added p50 |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, row in report["scenarios"].items():
        on, off = row["counting_on_ms"], row["counting_off_ms"]
        lines.append(
            f"| {name} | {on['page']['p50']} / {off['page']['p50']} ms "
            f"| {on['total']['p50']} / {off['total']['p50']} ms "
            f"| {on['total']['p95']} / {off['total']['p95']} ms "
            f"| {row['ratio_page_p50']} | {row['ratio_total_p50']} "
            f"| {row['added_total_p50_ms']} ms |"
        )
    lines += [
        "",
        "page: until the body is ready (what the visitor waits for); total: with closing the "
        "response, where the counting write runs.",
        f"Counted during the run: {report['counted']}.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=400)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tradepost-insights-bench-") as home:
        _setup(home)
        report = run(args.rounds)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"insights-{stamp}.json").write_text(json.dumps(report, indent=2) + "\n")
    text = _markdown(report)
    (RESULTS / f"insights-{stamp}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
