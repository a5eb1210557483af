from unittest import mock

import pytest
from django.db.utils import OperationalError


@pytest.mark.django_db
def test_healthz_answers_ok_with_database(client):
    from tradepost.search import index as search_index

    search_index.beat()  # this node's worker is alive
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["database"] == "ok"


@pytest.mark.django_db
def test_healthz_answers_503_when_database_fails(client):
    with mock.patch("tradepost.web.views.health.connection") as conn:
        conn.cursor.side_effect = OperationalError("down")
        response = client.get("/healthz")
    assert response.status_code == 503


@pytest.mark.django_db
def test_root_negotiates_language(client):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-TW,zh;q=0.9")
    assert response.status_code == 302
    assert response["Location"].startswith("/zh-hant/")
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert response["Location"].startswith("/zh-hans/")
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="de-DE")
    assert response["Location"].startswith("/en/")


@pytest.mark.django_db
def test_healthz_says_when_the_worker_stopped_or_the_index_fell_behind(client, settings):
    import os
    import time

    from tests.factories.catalog import make_product
    from tests.factories.search import index, record
    from tradepost.search import index as search_index

    # No worker has ever run on this node: nothing queued would run.
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["status"] == "unavailable" and response.json()["worker"] == "stopped"

    search_index.beat()
    index(make_product(title="Steel bar"))
    body = client.get("/healthz").json()
    assert body == {**body, "status": "ok", "worker": "ok"}
    assert body["search"]["pending"] == 0 and body["search"]["status"] == "ok"

    # A change waits and nothing was applied for a long while: behind.
    record(make_product(title="Copper bar"))
    state = search_index.read_state()
    assert state is not None
    state.applied_at = state.built_at = time.time() - 3600
    search_index.write_state(state)
    body = client.get("/healthz").json()
    assert body["status"] == "degraded"
    assert body["search"]["status"] == "behind" and body["search"]["pending"] == 1

    # A worker silent past the bound (stopped, or hung: SIGSTOP) is reported stopped: 503.
    search_index.beat()
    silent = time.time() - settings.TRADEPOST_WORKER_SILENT_SECONDS - 1
    os.utime(search_index.heartbeat_path(), (silent, silent))
    response = client.get("/healthz")
    assert response.status_code == 503 and response.json()["worker"] == "stopped"


@pytest.mark.django_db
def test_a_node_served_without_a_worker_is_degraded_not_down(client, settings):
    settings.TRADEPOST_HEALTH_NEEDS_WORKER = False  # `tradepost serve --no-worker`
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "degraded" and response.json()["worker"] == "stopped"


@pytest.mark.django_db
def test_metrics_in_prometheus_text(client):
    from tradepost.search import index as search_index

    search_index.beat()
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    lines = dict(line.split(" ") for line in response.content.decode().splitlines())
    assert lines["tradepost_database_up"] == "1"
    assert lines["tradepost_worker_up"] == "1"
    assert int(lines["tradepost_search_outbox_pending"]) >= 0
    assert float(lines["tradepost_worker_heartbeat_age_seconds"]) < 60


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("proxies", "meta", "status"),
    [
        (0, {"REMOTE_ADDR": "127.0.0.1"}, 200),
        (0, {"REMOTE_ADDR": "::1"}, 200),
        (0, {"REMOTE_ADDR": "203.0.113.9"}, 403),
        # Behind nginx: the address it forwards is the client's.
        (1, {"REMOTE_ADDR": "127.0.0.1", "HTTP_X_FORWARDED_FOR": "203.0.113.9"}, 403),
        (1, {"REMOTE_ADDR": "127.0.0.1", "HTTP_X_FORWARDED_FOR": "127.0.0.1"}, 200),
    ],
)
def test_metrics_answer_this_machine_only(client, settings, proxies, meta, status):
    settings.TRADEPOST_PROXY_COUNT = proxies
    assert client.get("/metrics", **meta).status_code == status


@pytest.mark.django_db
def test_metrics_answer_the_token_from_anywhere_and_nobody_else(client, settings):
    settings.TRADEPOST_METRICS_TOKEN = "scrape-0123456789"
    elsewhere = {"REMOTE_ADDR": "203.0.113.9"}
    assert client.get("/metrics", **elsewhere).status_code == 403
    wrong = {"HTTP_AUTHORIZATION": "Bearer scrape-wrong", **elsewhere}
    assert client.get("/metrics", **wrong).status_code == 403
    right = {"HTTP_AUTHORIZATION": "Bearer scrape-0123456789", **elsewhere}
    assert client.get("/metrics", **right).status_code == 200
    # With a token set, being on this machine is not enough.
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 403


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.django_db
def test_healthz_and_metrics_report_redis_when_the_site_uses_it(client, settings):
    import os
    import socket

    from tradepost.search import index as search_index

    search_index.beat()
    assert "redis" not in client.get("/healthz").json()  # no REDIS_URL: nothing to report

    settings.REDIS_URL = f"redis://127.0.0.1:{_free_port()}/0"  # nobody listens there
    body = client.get("/healthz").json()
    assert body["redis"] == "unreachable" and body["status"] == "degraded"
    assert "tradepost_redis_up 0" in client.get("/metrics").content.decode()

    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=1).close()
    except OSError:
        if os.environ.get("CI"):
            pytest.fail("Redis is not answering on 127.0.0.1:6379 (CI needs it)")
        pytest.skip("Redis is not answering on 127.0.0.1:6379")
    settings.REDIS_URL = "redis://127.0.0.1:6379/0"
    assert client.get("/healthz").json()["redis"] == "ok"
    assert "tradepost_redis_up 1" in client.get("/metrics").content.decode()
