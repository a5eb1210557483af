"""gunicorn settings for `tradepost serve` (`--config python:tradepost.config.gunicorn`).

Each worker process loads the search analysers (rjieba and its trade-term dictionary,
OpenCC, the stemmer), the glossary, the category tree and the index before it takes its
first request, instead of making the first searches of every worker wait over a second.
Then it moves everything loaded so far out of the garbage collector's sight (`gc.freeze`):
those objects live as long as the process, and a full collection walked all of them in the
middle of some request (at a million listings, 139 ms once every few hundred searches;
8 ms with them frozen).

The workers are gunicorn's threaded ones (`ProblemThreadWorker`), except that the requests
gunicorn refuses before Django sees them (an address longer than `limit_request_line`, 414;
headers beyond its limits, 431) are answered with a problem document, as every other API error
is (docs/api.md), instead of gunicorn's HTML page.
"""

from __future__ import annotations

import gc
import json
import logging
import time
from typing import Any

from gunicorn import util
from gunicorn.http.errors import LimitRequestHeaders, LimitRequestLine
from gunicorn.workers.gthread import ThreadWorker

logger = logging.getLogger("tradepost.serve")

#: gunicorn takes `--threads` with this class as it would with its own `gthread`.
worker_class = "tradepost.config.gunicorn.ProblemThreadWorker"

#: What gunicorn refuses itself: (error, status, reason phrase, problem code, title). The
#: request was not read, so its language is not known: the title is in English.
REFUSALS: tuple[tuple[type[Exception], int, str, str, str], ...] = (
    (LimitRequestLine, 414, "URI Too Long", "uri-too-long", "The address is too long"),
    (
        LimitRequestHeaders,
        431,
        "Request Header Fields Too Large",
        "headers-too-large",
        "The request headers are too large",
    ),
)


def post_worker_init(worker: Any) -> None:
    """Called by gunicorn in each worker once the application is loaded, before it accepts
    connections. A failure only means a slower first search, never a dead worker."""
    started = time.perf_counter()
    try:
        from tradepost.search.selectors import warm_up

        warm_up()
    except Exception:
        logger.exception("search warm-up failed in worker %s", getattr(worker, "pid", "?"))
        return
    gc.collect()
    gc.freeze()
    logger.info(
        "worker %s: search warmed up in %.0f ms",
        getattr(worker, "pid", "?"),
        (time.perf_counter() - started) * 1000,
    )


def refusal_response(status: int, reason: str, code: str, title: str) -> bytes:
    """A whole HTTP response: a problem document that closes the connection."""
    from tradepost.api.problems import problem_type

    body = json.dumps(
        {"type": problem_type(code), "title": title, "status": status, "detail": title}
    ).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/problem+json\r\n"
        f"Content-Length: {len(body)}\r\n"
        "\r\n"
    )
    return head.encode("latin-1") + body


class ProblemThreadWorker(ThreadWorker):
    """gunicorn's threaded worker, answering its own refusals (`REFUSALS`) as problems."""

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        for kind, status, reason, code, title in REFUSALS:
            if isinstance(exc, kind):
                self.log.warning("Invalid request from ip=%s: %s", (addr or ("",))[0], exc)
                try:
                    util.write_nonblock(client, refusal_response(status, reason, code, title))
                except OSError:
                    self.log.debug("Failed to send error message.")
                return
        super().handle_error(req, client, addr, exc)
