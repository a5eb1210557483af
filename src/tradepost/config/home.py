"""The data folder (TRADEPOST_HOME) and the secret key kept in it.

Settings only read them; `prepare_home()` makes them, once, from the `tradepost` command
before Django starts, so importing the settings writes no file.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

KEY_FILE = "secret_key"


def data_home() -> Path:
    return Path(os.environ.get("TRADEPOST_HOME") or "var").resolve()


def prepare_home() -> Path:
    """Create the data folder and, unless SECRET_KEY is set, a secret key file (mode 600)."""
    home = data_home()
    (home / "static").mkdir(parents=True, exist_ok=True)
    key_file = home / KEY_FILE
    if not os.environ.get("SECRET_KEY") and not key_file.exists():
        key_file.touch(mode=0o600)
        key_file.write_text(secrets.token_urlsafe(50))
    return home


def read_secret_key(home: Path) -> str:
    try:
        key = (home / KEY_FILE).read_text().strip()
    except FileNotFoundError:
        key = ""
    if not key:
        raise ImproperlyConfigured(
            f"No secret key: set SECRET_KEY, or run any `tradepost` command once to create "
            f"{home / KEY_FILE}."
        )
    return key
