"""How the browser tests launch Debian's Chromium; `bench/screenshots.py` launches it the same
way (no download, no background traffic)."""

from __future__ import annotations

import os
import shutil

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    for candidate in (os.environ.get("CHROMIUM_PATH"), "chromium", "chromium-browser"):
        if candidate and (path := shutil.which(candidate)):
            return path
    return None
