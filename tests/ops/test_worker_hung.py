"""A hung worker (SIGSTOP: alive, silent) under `tradepost serve` (real processes): /healthz
answers 503 while its heartbeat is silent, and `serve` kills it and starts another, after
which /healthz answers 200 again."""

from __future__ import annotations

import json
import os
import signal
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.processes import migrated_home, process_env, start_cli


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _health(port: int) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())
    except OSError:
        return 0, {}


def _children(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(child) for child in text.split()]


def _worker(serve: int) -> int | None:
    for child in _children(serve):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"worker" in command:
            return child
    return None


def _until(test, *, within: float, what: str):
    deadline = time.monotonic() + within
    while not (answer := test()):
        assert time.monotonic() < deadline, what
        time.sleep(0.2)
    return answer


@pytest.mark.slow
def test_a_hung_worker_makes_healthz_503_and_serve_restarts_it(tmp_path, migrated_sqlite):
    home = migrated_home(tmp_path / "home", migrated_sqlite)
    port = _free_port()
    env = process_env(
        home,
        TRADEPOST_TASKS_BACKEND="database",
        TRADEPOST_WORKER_HEARTBEAT_SECONDS="0.5",
        TRADEPOST_WORKER_SILENT_SECONDS="2",
        TRADEPOST_WORKER_HUNG_SECONDS="4",
    )
    serve = start_cli(env, "serve", "--port", str(port), "--workers", "1", "--threads", "1")
    try:
        _until(lambda: _health(port)[0] == 200, within=90, what="the site never became healthy")
        hung = _until(lambda: _worker(serve.pid), within=10, what="no worker process")
        os.kill(hung, signal.SIGSTOP)
        _status, body = _until(
            lambda: (answer := _health(port))[0] == 503 and answer,
            within=10,
            what="/healthz never said the stopped worker was down",
        )
        assert body["worker"] == "stopped"
        restarted = _until(
            lambda: (pid := _worker(serve.pid)) not in (None, hung) and pid,
            within=30,
            what="serve never replaced the hung worker",
        )
        assert (
            not Path(f"/proc/{hung}/status").exists()
            or "zombie" in Path(f"/proc/{hung}/status").read_text()
        )
        _until(lambda: _health(port)[0] == 200, within=30, what="not healthy after the restart")
        assert restarted != hung
    finally:
        serve.send_signal(signal.SIGTERM)
        try:
            serve.wait(timeout=30)
        except Exception:
            serve.kill()
