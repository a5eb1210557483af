"""`make screenshots`: a PNG of every main page of the served demo, in the three languages, at
1366 and 390 px wide, for a person to review (#13).

Prepares and serves the demo as `make audit` does (`bench/served_demo.py`), opens each page
in Debian's Chromium through Playwright with the e2e tests' launch options, logged in as the
demo buyer or supplier where the page needs it, and writes full-page screenshots named
`<page>-<language>-<width>.png` to the folder given (default var/screenshots).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the checkout's root on the path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.served_demo import DEFAULT_HOME, LANGUAGES, ROOT, demo_env, main_pages, prepare, served
from tests.e2e.chromium import CHROMIUM_ARGS, chromium_path

WIDTHS = {1366: 800, 390: 844}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", type=Path, default=DEFAULT_HOME)
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "screenshots")
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    args = parser.parse_args(argv)
    executable = chromium_path()
    if executable is None:
        parser.error("Chromium is not installed (Debian package 'chromium'): `make test-tools`")
    from playwright.sync_api import sync_playwright

    env = demo_env(args.home)
    prepare(args.home, env)
    pages, logins = main_pages(env)
    args.out.mkdir(parents=True, exist_ok=True)
    written = 0
    with served(args.home, env) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_ARGS
        )
        for width, height in WIDTHS.items():
            for who in ("visitor", "buyer", "supplier"):
                context = browser.new_context(viewport={"width": width, "height": height})
                page = context.new_page()
                if who != "visitor":
                    email, password = logins[who]
                    if password is None:
                        print(f"skipped the {who}'s pages: the demo password was changed")
                        context.close()
                        continue
                    page.goto(f"{base}/en/accounts/login/")
                    page.fill("#id_username", email)
                    page.fill("#id_password", password)
                    page.click("main form.stacked button[type=submit]")
                    page.wait_for_load_state()
                for language in args.languages.split(","):
                    for main_page in (p for p in pages if p.who == who):
                        page.goto(f"{base}/{language}{main_page.path}")
                        page.wait_for_load_state("networkidle")
                        path = args.out / f"{main_page.name}-{language}-{width}.png"
                        page.screenshot(path=str(path), full_page=True)
                        written += 1
                context.close()
        browser.close()
    print(f"{written} screenshots in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
