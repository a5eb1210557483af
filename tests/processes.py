"""Real processes for the tests that kill one (`kill -9` mid-import, mid-delivery, mid-index):
the environment of a throwaway installation in a folder of its own (SQLite database there),
Python run in it, a `tradepost` command started in it, and the wait-then-SIGKILL."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def process_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of an installation in `home` (its SQLite database there), test
    settings, plus `extra` variables."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tradepost.config.test_settings",
        "TRADEPOST_HOME": str(home),
        "DATABASE_URL": f"sqlite:///{home / 'tradepost.sqlite3'}",
        "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'src'}",
        **extra,
    }


def migrated_database(folder: Path) -> Path:
    """A SQLite database file the migrations have run on, in `folder` (shared by the parallel
    test workers: the first makes it under a file lock, the others wait and reuse it). Copied
    into a home by `migrated_home`: migrating takes a process 15 s of CPU."""
    database = folder / "migrated.sqlite3"
    with (folder / "migrated.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not database.exists():
            making = folder / "migrating"
            shutil.rmtree(making, ignore_errors=True)
            making.mkdir()
            done = run_cli(process_env(making), "migrate", "--noinput", "-v0")
            assert done.returncode == 0, done.stderr
            (making / "tradepost.sqlite3").rename(database)
    return database


def migrated_home(home: Path, template: Path) -> Path:
    """`home` with a copy of the migrated database: an installation ready to run."""
    home.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(template, home / "tradepost.sqlite3")
    return home


def run_python(
    code: str, env: dict[str, str], *args: str, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """`python -c code args…` in the repository, its output captured."""
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def python_json(code: str, env: dict[str, str]) -> Any:
    """The JSON that `code` prints last (it must succeed)."""
    done = run_python(code, env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def cli(*args: str) -> list[str]:
    """The command line of `tradepost args…` in this Python."""
    return [sys.executable, "-m", "tradepost.cli", *args]


def run_cli(
    env: dict[str, str], *args: str, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """`tradepost args…` run to its end, its output captured."""
    return subprocess.run(
        cli(*args), cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout
    )


def start_cli(env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    """`tradepost args…` started in the background; its stderr kept for a failure message."""
    return subprocess.Popen(
        cli(*args), cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )


def kill_9_once(
    process: subprocess.Popen[bytes], ready: Callable[[], Any], *, within: float, what: str
) -> None:
    """Wait (at most `within` seconds, `what` saying what did not happen) until `ready()` is
    true while `process` still runs, then SIGKILL it and see it die of that."""
    deadline = time.monotonic() + within
    while not ready():
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        assert time.monotonic() < deadline, what
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
