"""What the HTTP server refuses before Django sees it is a problem document too: an address
longer than gunicorn reads (414) or headers beyond its limits (431) were gunicorn's HTML page
(found by scripts/api_fuzz.py). Runs the real `tradepost serve`."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.network import free_port


def _exchange(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), headers, body


@pytest.fixture(scope="module")
def port(tmp_path_factory) -> Iterator[int]:
    home = tmp_path_factory.mktemp("serve-home")
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "DEBUG", "TRADEPOST_TASKS_BACKEND"}
    }
    env.update(
        {
            "TRADEPOST_HOME": str(home),
            "DJANGO_SETTINGS_MODULE": "tradepost.config.settings",
            "LOG_LEVEL": "CRITICAL",
        }
    )
    port = free_port()
    tradepost = str(Path(sys.executable).with_name("tradepost"))
    argv = [tradepost, "serve", "--port", str(port), "--no-worker", "--workers", "1"]
    server = subprocess.Popen(
        argv,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, "tradepost serve exited"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "tradepost serve did not start"
                time.sleep(0.2)
        yield port
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=20)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGKILL)


def _assert_problem(port: int, request: bytes, status: int) -> dict:
    code, headers, body = _exchange(port, request)
    assert code == status, body
    assert headers["content-type"] == "application/problem+json"
    assert int(headers["content-length"]) == len(body)
    problem = json.loads(body)
    assert problem["status"] == status and problem["title"]
    assert re.fullmatch(r"https?://[^/]+/problems/[a-z-]+", problem["type"]), problem["type"]
    return problem


def test_an_address_too_long_to_read_is_a_414_problem(port):
    path = "/api/v1/products?cursor=" + "a" * 6000
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    _assert_problem(port, request, 414)


def test_headers_too_large_to_read_are_a_431_problem(port):
    request = (
        "GET /api/v1/categories HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + f"X-Filler: {'a' * 9000}\r\n"
        + "\r\n"
    ).encode()
    _assert_problem(port, request, 431)
