"""A real HTTP receiver on 127.0.0.1 (a server thread) that keeps what Tradepost sends,
checks each signature with the code of docs/webhooks.md, and answers as a test tells it."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.network import free_port
from tests.webhooks.docs_code import python_verifier


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float
    verified: bool | None  # by the documented code, when the receiver knows the secret


#: What the receiver does with one request: answer a status, or something stranger.
Behaviour = Callable[[BaseHTTPRequestHandler], None]


def status(code: int, body: bytes = b"") -> Behaviour:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(code)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return answer


def hang(seconds: float) -> Behaviour:
    """Answer nothing for `seconds` (the sender times out first), then 200."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        time.sleep(seconds)
        with contextlib.suppress(OSError):
            status(200)(handler)

    return answer


def trickle(seconds: float) -> Behaviour:
    """A 200 whose body comes one byte every 0.1 s for `seconds`."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(int(seconds * 10)))
        handler.end_headers()
        try:
            for _ in range(int(seconds * 10)):
                handler.wfile.write(b"x")
                handler.wfile.flush()
                time.sleep(0.1)
        except OSError:
            pass

    return answer


def redirect(location: str) -> Behaviour:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(302)
        handler.send_header("Location", location)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return answer


@dataclass
class Receiver:
    port: int
    secret: str | None = None
    received: list[Received] = field(default_factory=list)
    script: list[Behaviour] = field(default_factory=list)
    otherwise: Behaviour = field(default_factory=lambda: status(204))
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/tradepost/hooks"

    def answer_with(self, *behaviours: Behaviour) -> None:
        """The next requests get these, in order; later ones get `otherwise`."""
        with self.lock:
            self.script.extend(behaviours)

    def keep(self, handler: BaseHTTPRequestHandler) -> Behaviour:
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length)
        headers = {name.lower(): value for name, value in handler.headers.items()}
        verified = None
        if self.secret is not None:
            verified = python_verifier()(self.secret, headers.get("tradepost-signature", ""), body)
        with self.lock:
            self.received.append(Received(handler.path, headers, body, time.time(), verified))
            return self.script.pop(0) if self.script else self.otherwise

    def bodies(self) -> list[dict[str, Any]]:
        import json

        with self.lock:
            return [json.loads(item.body) for item in self.received]


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a sender that hung up (a timeout, a cut answer) is what some tests do


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            receiver.keep(self)(self)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver(free_port())
    server = _QuietServer(("127.0.0.1", found.port), _handler(found))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield found
    server.shutdown()
    server.server_close()


@pytest.fixture
def allow_loopback(settings) -> None:
    """The tests' explicit allowance: deliveries may go to the receiver on 127.0.0.1."""
    settings.TRADEPOST_WEBHOOKS_ALLOW_PRIVATE = True


@pytest.fixture
def fast_timeouts(settings) -> None:
    settings.TRADEPOST_WEBHOOKS_CONNECT_TIMEOUT = 1.0
    settings.TRADEPOST_WEBHOOKS_TIMEOUT = 1.0
