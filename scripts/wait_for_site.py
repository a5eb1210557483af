"""Wait for a served Tradepost (`make run` times its first start with it).

    wait_for_site.py BASE_URL page    until the home page answers 200
    wait_for_site.py BASE_URL index   until /healthz says the search index holds everything

Exit 0 when it happened, 1 after ten minutes (saying what did not happen).
"""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request

LIMIT_SECONDS = 600
POLL_SECONDS = 0.1


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 - our own URL
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except (OSError, urllib.error.URLError):
        return 0, b""


def page_answers(base: str) -> bool:
    return _get(f"{base}/")[0] == 200


def index_caught_up(base: str) -> bool:
    status, body = _get(f"{base}/healthz")
    if status != 200:
        return False
    search = json.loads(body).get("search")
    return isinstance(search, dict) and search.get("status") == "ok" and not search["pending"]


def main(base: str, what: str) -> int:
    ready = {"page": page_answers, "index": index_caught_up}[what]
    deadline = time.monotonic() + LIMIT_SECONDS
    while not ready(base):
        if time.monotonic() > deadline:
            print(f"{base}: no {what} after {LIMIT_SECONDS} s", file=sys.stderr)
            return 1
        time.sleep(POLL_SECONDS)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1].rstrip("/"), sys.argv[2]))
