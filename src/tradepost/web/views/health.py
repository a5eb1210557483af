"""Health and metrics of this app node: the database, Redis when the site uses it, this
machine's worker and its search index (each node keeps its own index, fed by its own worker)."""

from __future__ import annotations

import hmac
import ipaddress
from functools import cache
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.utils import DatabaseError
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from tradepost.core.clients import client_address
from tradepost.search.indexer import indexer_status

#: The index is reported behind when changes wait and nothing was applied for this long.
INDEX_STALE_SECONDS = 120


@cache
def _redis(url: str) -> Any:
    """A client of the Redis at `url` (its connection pool kept for the process)."""
    import redis

    return redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=0.5)


def redis_health() -> str | None:
    """ "ok" or "unreachable" for the Redis at `REDIS_URL`; None when the site uses none. The
    site still answers without it (an empty cache, sessions from the database), degraded."""
    url = str(settings.REDIS_URL)
    if not url:
        return None
    try:
        return "ok" if _redis(url).ping() else "unreachable"
    except Exception:  # any failure to reach it, whatever redis-py raises
        return "unreachable"


def node_health() -> tuple[bool, dict[str, object]]:
    """Whether the database answers, and the report of Redis, this node's worker and search
    index (also shown on the operator's desk)."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError:
        return False, {"database": "unreachable"}
    search = indexer_status()
    worker_age = search["worker_seconds_ago"]
    applied_age = search["applied_seconds_ago"]
    silent = float(settings.TRADEPOST_WORKER_SILENT_SECONDS)
    worker = "ok" if worker_age is not None and worker_age <= silent else "stopped"
    behind = bool(search["pending"]) and (applied_age is None or applied_age > INDEX_STALE_SECONDS)
    report: dict[str, object] = {
        "database": "ok",
        "worker": worker,
        "search": {**search, "status": "behind" if behind else "ok"},
    }
    if (redis := redis_health()) is not None:
        report["redis"] = redis
    return True, report


@require_GET
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """200 with `status` "ok", or "degraded" when its search index has fallen behind the
    database (the site still answers; searches may be stale) or its Redis does not answer;
    503 when the database does not answer, or when this node's worker has stopped or hung
    (silent for `TRADEPOST_WORKER_SILENT_SECONDS`: nothing queued would run; a node served
    without a worker, `TRADEPOST_HEALTH_NEEDS_WORKER` off, is only "degraded" then)."""
    reachable, report = node_health()
    if not reachable:
        return JsonResponse({"status": "unavailable", **report}, status=503)
    if report["worker"] != "ok" and settings.TRADEPOST_HEALTH_NEEDS_WORKER:
        return JsonResponse({"status": "unavailable", **report}, status=503)
    search = report["search"]
    degraded = (
        report["worker"] != "ok"
        or (isinstance(search, dict) and search["status"] != "ok")
        or report.get("redis", "ok") != "ok"
    )
    return JsonResponse({"status": "degraded" if degraded else "ok", **report})


def _may_read_metrics(request: HttpRequest) -> bool:
    """With `TRADEPOST_METRICS_TOKEN` set, whoever sends it; otherwise a client on this
    machine only (its address after the proxies `TRADEPOST_PROXY_COUNT` counts)."""
    token = str(settings.TRADEPOST_METRICS_TOKEN)
    if token:
        sent = request.headers.get("Authorization", "")
        return hmac.compare_digest(sent.encode(), f"Bearer {token}".encode())
    try:
        return ipaddress.ip_address(client_address(request)).is_loopback
    except ValueError:
        return False


@require_GET
@never_cache
def metrics(request: HttpRequest) -> HttpResponse:
    """The same in Prometheus' text format, for scraping and alerting: for this machine's
    clients, or those that send the metrics token."""
    if not _may_read_metrics(request):
        return HttpResponseForbidden(
            "The metrics answer clients on this machine, or the metrics token.\n",
            content_type="text/plain",
        )
    reachable, report = node_health()
    lines = [f"tradepost_database_up {int(reachable)}"]
    if "redis" in report:
        lines.append(f"tradepost_redis_up {int(report['redis'] == 'ok')}")
    search = report.get("search")
    if isinstance(search, dict):
        lines.append(f"tradepost_worker_up {int(report['worker'] == 'ok')}")
        lines.append(f"tradepost_search_outbox_pending {search['pending']}")
        for name, key in (
            ("tradepost_search_applied_age_seconds", "applied_seconds_ago"),
            ("tradepost_worker_heartbeat_age_seconds", "worker_seconds_ago"),
        ):
            if search[key] is not None:
                lines.append(f"{name} {search[key]}")
    return HttpResponse("\n".join(lines) + "\n", content_type="text/plain; version=0.0.4")
