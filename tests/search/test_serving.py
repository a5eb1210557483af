"""Serving search over HTTP: each gunicorn worker warms the search up before its first
request, `tradepost serve` starts gunicorn with that hook and a process per CPU, and the
API builds a page of hits without reversing URLs per hit."""

from __future__ import annotations

import gc
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.core.management import call_command

from tests.factories.catalog import make_product
from tests.factories.search import index
from tradepost.api import search as search_api
from tradepost.config import gunicorn as gunicorn_config
from tradepost.ops.management.commands import serve
from tradepost.search import selectors


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """The hook freezes this process's objects for the collector; the tests go on after."""
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_each_worker_warms_the_search_up_then_freezes_what_it_loaded(monkeypatch, unfrozen):
    calls = []
    monkeypatch.setattr(selectors, "warm_up", lambda: calls.append(1))
    assert gc.get_freeze_count() == 0
    gunicorn_config.post_worker_init(SimpleNamespace(pid=123))
    assert calls == [1]
    # Everything loaded before the first request is out of the collector's sight.
    assert gc.get_freeze_count() > 1000
    assert gc.is_tracked(selectors.__dict__) and len(gc.get_objects()) < gc.get_freeze_count()


def test_a_failed_warm_up_does_not_stop_the_worker(monkeypatch, unfrozen):
    def broken() -> None:
        raise RuntimeError("index unreadable")

    monkeypatch.setattr(selectors, "warm_up", broken)
    gunicorn_config.post_worker_init(SimpleNamespace(pid=123))  # no exception


@pytest.mark.django_db
def test_warm_up_runs_on_an_empty_and_on_a_filled_index():
    selectors.warm_up()
    index(make_product(title="Warm wool blanket"))
    selectors.warm_up()


class _FakeProcess:
    def __init__(self, argv, env=None):
        self.argv = argv
        self.env = env

    def wait(self, timeout=None):
        return 0

    def poll(self):
        return 0


def _gunicorn_argv(monkeypatch, *args, env=None):
    started = []

    def popen(argv, env=None):
        process = _FakeProcess(argv, env)
        started.append(process)
        return process

    monkeypatch.setattr(serve.subprocess, "Popen", popen)
    monkeypatch.setattr(serve.signal, "signal", lambda *a: None)
    # Start the children once instead of supervising them until a signal comes.
    monkeypatch.setattr(serve.Supervisor, "run", lambda self, **kw: self.start())
    for name, value in (env or {}).items():
        monkeypatch.setenv(name, value)
    call_command("serve", "--no-worker", *args)
    (web,) = started
    return web.argv


def test_serve_uses_the_warm_up_hook_and_a_process_per_cpu(monkeypatch):
    monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    monkeypatch.delenv("WEB_THREADS", raising=False)
    argv = _gunicorn_argv(monkeypatch)
    assert argv[argv.index("--config") + 1] == "python:tradepost.config.gunicorn"
    assert argv[argv.index("--workers") + 1] == str(serve.default_workers())
    assert serve.default_workers() >= 2
    assert argv[argv.index("--threads") + 1] == "2"


def test_serve_workers_and_threads_can_be_set(monkeypatch):
    argv = _gunicorn_argv(monkeypatch, "--workers", "3", "--threads", "1")
    assert argv[argv.index("--workers") + 1] == "3"
    assert argv[argv.index("--threads") + 1] == "1"


@pytest.mark.django_db
def test_a_page_of_hits_reverses_urls_once_not_per_hit(client, monkeypatch):
    index(*[make_product(title=f"Wool blanket {n}", slug=f"wool-blanket-{n}") for n in range(5)])
    calls = []
    real = search_api.reverse

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(search_api, "reverse", counting)
    body = client.get("/api/v1/search/products", {"q": "wool blanket"}).json()
    assert body["count"] == 5
    assert len(calls) == 2
    assert all("/products/" in hit["url"] and hit["url"].endswith("/") for hit in body["items"])


@pytest.fixture
def short_home(settings) -> Iterator[Path]:
    """A data folder whose path leaves room for a socket's name (a parallel test worker's
    tmp_path may not: the next test is about such paths)."""
    with tempfile.TemporaryDirectory(prefix="tp-") as folder:
        settings.HOME = Path(folder)
        yield Path(folder)


def test_each_server_has_its_own_control_socket(monkeypatch, short_home):
    """gunicorn's control socket defaults to one path per user: two servers on one machine
    would share it. Each `tradepost serve` gets one in its data folder, named by its port."""
    first = _gunicorn_argv(monkeypatch, "--port", "8101")
    second = _gunicorn_argv(monkeypatch, "--port", "8102")
    sockets = [argv[argv.index("--control-socket") + 1] for argv in (first, second)]
    assert sockets[0] != sockets[1]
    assert all(path.startswith(str(short_home / "run")) for path in sockets)
    assert sockets[0].endswith("8101.ctl")


def test_a_long_data_folder_gets_a_short_control_socket_path(settings, tmp_path):
    settings.HOME = tmp_path / ("deep-" * 30)
    path = serve.control_socket("127.0.0.1", 8000)
    assert len(str(path).encode()) <= serve.SOCKET_PATH_MAX
    assert path != serve.control_socket("127.0.0.1", 8001)
