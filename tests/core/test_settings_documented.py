"""Every environment variable the settings read is documented for operators, and a wrong
value stops the start naming the variable."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = ROOT / "src" / "tradepost" / "config" / "settings.py"
READ = re.compile(r"\benv\.(?:str|int|float|bool|list|path)\(\s*\"([A-Z_]+)\"")


def test_every_variable_the_settings_read_is_in_the_operations_guide():
    names = set(READ.findall(SETTINGS.read_text(encoding="utf-8")))
    assert {"DATABASE_URL", "REDIS_URL", "TRADEPOST_RFQ_QUOTE_LIMIT"} <= names
    guide = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    assert sorted(name for name in names if f"`{name}`" not in guide) == []


def test_a_wrong_value_stops_the_start_with_the_variable_name(tmp_path):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tradepost.config.settings",
        "TRADEPOST_HOME": str(tmp_path),
        "TRADEPOST_RFQ_QUOTE_LIMIT": "ten",
    }
    done = subprocess.run(
        [sys.executable, "-m", "tradepost.cli", "check"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "TRADEPOST_RFQ_QUOTE_LIMIT" in done.stderr


def test_site_url_follows_port_unless_set(tmp_path):
    code = (
        "import django; django.setup(); from django.conf import settings; print(settings.SITE_URL)"
    )
    base = {
        **{k: v for k, v in os.environ.items() if k != "SITE_URL"},
        "DJANGO_SETTINGS_MODULE": "tradepost.config.settings",
        "PORT": "9123",
    }
    for extra, expected in (
        ({}, "http://127.0.0.1:9123"),
        ({"SITE_URL": "https://t.example/"}, "https://t.example"),
    ):
        done = subprocess.run(
            [sys.executable, "-c", code],
            env={**base, **extra},
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        assert done.stdout.strip() == expected
