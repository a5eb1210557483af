"""A benchmark that starts a server turns the site's limits off, and counts every answer that
is not a success as a failure, by status: a throughput measured through 429s measured the
limits (#25: 3.7 requests/s on a million listings, 2,488 of them refusals)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bench import load_bench, search_bench


class _Limited(BaseHTTPRequestHandler):
    """200 on /ok, 429 on /limited (keep-alive, as the site answers)."""

    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        status = 200 if self.path == "/ok" else 429
        self.send_response(status)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def server() -> Iterator[tuple[str, int]]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Limited)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield "127.0.0.1", httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


def test_answers_that_are_not_200_are_failures_by_status(server):
    host, port = server
    result = search_bench.load(
        host, port, ["/ok", "/limited"], clients=2, seconds=30, max_requests=20
    )
    assert result.requests == 10
    assert result.errors == 10
    assert result.failures == {"429": 10}


def test_a_closed_port_is_a_failure_too():
    result = search_bench.load("127.0.0.1", 9, ["/"], clients=1, seconds=30, max_requests=3)
    assert (result.requests, result.errors, result.failures) == (0, 3, {"no answer": 3})


def test_servers_the_benchmarks_start_have_the_api_limits_off():
    assert load_bench.RAISED_LIMITS["TRADEPOST_API_READS_PER_MINUTE"] == "0"
    assert load_bench.RAISED_LIMITS["TRADEPOST_API_WRITES_PER_MINUTE"] == "0"
    env = load_bench.profile_env("sqlite", load_bench.ROOT / "var" / "unused")
    assert env["TRADEPOST_API_READS_PER_MINUTE"] == "0"
