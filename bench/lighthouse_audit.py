"""`make audit`: Lighthouse on the main pages of the served demo, in the three languages (#13).

1. Prepares a data folder with the demo marketplace (`bench/served_demo.py`, default
   var/audit-home; `--home` to choose) and serves it with `tradepost serve` on a free port.
2. Runs Lighthouse 12.2.3 (`bench/lighthouse/`, installed by `npm ci`; it downloads no
   browser: Debian's Chromium through CHROME_PATH, headless, no background traffic) on the
   home, search, product, company, request and compare pages (the last as the demo buyer,
   through a session cookie) in en, zh-hans and zh-hant, mobile preset unless `--preset
   desktop`.
3. Writes the four category scores of every page to `bench/results/lighthouse-<time>.md`
   and `.json`, with the audits that cost points, and prints the table.

Goals: accessibility, best practices and SEO ≥ 95, performance ≥ 90. Too slow for CI (about
20 s a page); run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: the checkout's root on the path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.served_demo import (
    DEFAULT_HOME,
    LANGUAGES,
    demo_env,
    main_pages,
    prepare,
    served,
    session_cookie,
)

BENCH_DIR = Path(__file__).resolve().parent
RESULTS = BENCH_DIR / "results"
LIGHTHOUSE = BENCH_DIR / "lighthouse" / "node_modules" / ".bin" / "lighthouse"
CHROME_FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --disable-background-networking "
    "--disable-component-update --disable-sync"
)
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
GOALS = {"performance": 90, "accessibility": 95, "best-practices": 95, "seo": 95}
AUDITED = ("home", "search", "product", "company", "request", "compare")


def lighthouse(
    url: str, *, preset: str, cookie: str | None, chrome: str, work: Path
) -> dict[str, Any]:
    """One Lighthouse run; answers the report (lhr) as a dict."""
    output = work / "report.json"
    argv = [
        str(LIGHTHOUSE),
        url,
        "--quiet",
        "--output=json",
        f"--output-path={output}",
        f"--only-categories={','.join(CATEGORIES)}",
        f"--chrome-flags={CHROME_FLAGS}",
    ]
    if preset == "desktop":
        argv.append("--preset=desktop")
    if cookie:
        headers = work / "headers.json"
        headers.write_text(json.dumps({"Cookie": cookie}))
        argv.append(f"--extra-headers={headers}")
    env = {**os.environ, "CHROME_PATH": chrome}
    # Lighthouse sometimes fails to record the trace of a page load (NO_NAVSTART, "Please
    # run Lighthouse again"): a page gets three tries before the audit gives up.
    for attempt in range(3):
        done = subprocess.run(argv, env=env, check=attempt == 2, stdout=subprocess.DEVNULL)
        if done.returncode == 0:
            break
    return json.loads(output.read_text())


def summarise(lhr: dict[str, Any]) -> dict[str, Any]:
    """The four scores (0–100) and, per category, the weighted audits that lost points."""
    scores = {}
    lost: dict[str, list[str]] = {}
    for category in CATEGORIES:
        entry = lhr["categories"][category]
        scores[category] = round((entry["score"] or 0) * 100)
        for ref in entry["auditRefs"]:
            audit = lhr["audits"][ref["id"]]
            if ref.get("weight", 0) > 0 and audit.get("score") is not None and audit["score"] < 1:
                lost.setdefault(category, []).append(ref["id"])
    return {
        "scores": scores,
        "lost": lost,
        "final_url": lhr.get("finalDisplayedUrl"),
        "runtime_error": lhr.get("runtimeError"),
    }


def markdown(rows: list[dict[str, Any]], preset: str, machine: str) -> str:
    lines = [
        f"# Lighthouse 12.2.3 ({preset}) on the demo marketplace",
        "",
        f"Machine: {machine}. Goals: performance ≥ {GOALS['performance']}, accessibility, "
        f"best practices and SEO ≥ {GOALS['accessibility']}. Chromium: headless, through "
        "CHROME_PATH; pages served by `tradepost serve` with the demo data.",
        "",
        "| page | language | performance | accessibility | best practices | SEO |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        cells = [
            f"{row['scores'][c]}" + ("" if row["scores"][c] >= GOALS[c] else " ✗")
            for c in CATEGORIES
        ]
        lines.append(f"| {row['page']} | {row['language']} | " + " | ".join(cells) + " |")
    lost: Counter[str] = Counter()
    for row in rows:
        for category, audits in row["lost"].items():
            lost.update(f"{category}: {audit}" for audit in audits)
    if lost:
        lines += ["", "Audits that cost points (how many pages):", ""]
        lines += [f"- {name} ({count})" for name, count in lost.most_common()]
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", type=Path, default=DEFAULT_HOME)
    parser.add_argument("--preset", choices=("mobile", "desktop"), default="mobile")
    parser.add_argument("--pages", default=",".join(AUDITED), help="page names, comma-separated")
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    parser.add_argument("--results-dir", type=Path, default=RESULTS)
    parser.add_argument("--chrome", default=os.environ.get("CHROME_PATH", "/usr/bin/chromium"))
    args = parser.parse_args(argv)
    if not LIGHTHOUSE.exists():
        parser.error(f"{LIGHTHOUSE} is missing: `make audit` installs it (npm ci)")

    env = demo_env(args.home)
    prepare(args.home, env)
    pages, logins = main_pages(env)
    wanted = args.pages.split(",")
    pages = [page for page in pages if page.name in wanted]
    rows = []
    with served(args.home, env) as base, tempfile.TemporaryDirectory() as scratch:
        cookies = {
            role: session_cookie(base, email, password)
            for role, (email, password) in logins.items()
            if password  # None once the demo person changed the password
        }
        for language in args.languages.split(","):
            for page in pages:
                url = f"{base}/{language}{page.path}"
                cookie = cookies.get(page.who)
                lhr = lighthouse(
                    url, preset=args.preset, cookie=cookie, chrome=args.chrome, work=Path(scratch)
                )
                row = {"page": page.name, "language": language, "path": page.path}
                row.update(summarise(lhr))
                if row["final_url"] != url:  # a login page audited instead would say nothing
                    raise SystemExit(f"{url} ended at {row['final_url']}: not audited")
                print(
                    f"{page.name:8} {language:8} "
                    + " ".join(f"{c[:4]} {row['scores'][c]:3}" for c in CATEGORIES),
                    flush=True,
                )
                rows.append(row)

    args.results_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    name = f"lighthouse-{stamp}" + ("-desktop" if args.preset == "desktop" else "")
    machine = f"{os.cpu_count()} CPUs"
    (args.results_dir / f"{name}.json").write_text(
        json.dumps({"preset": args.preset, "goals": GOALS, "pages": rows}, indent=1)
    )
    report = markdown(rows, args.preset, machine)
    (args.results_dir / f"{name}.md").write_text(report)
    print(report)
    print(f"results: {args.results_dir / name}.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
