"""Forked pools end when told to, whatever signal handlers the parent installed (#25: a test
worker that had run the server's code in-process kept SIGTERM handled; a restore's reindex
then waited forever for an analysis process that took `Pool.terminate`'s SIGTERM and went on
waiting for its queue's lock)."""

from __future__ import annotations

import signal

import pytest

from tradepost.core.forking import forked_pool


def _defaults(_: int) -> tuple[bool, bool]:
    """In a pool's process: whether SIGTERM and SIGINT have their default behaviour."""
    return (
        signal.getsignal(signal.SIGTERM) is signal.SIG_DFL,
        signal.getsignal(signal.SIGINT) is signal.default_int_handler,
    )


def _ready() -> None:
    global _initialised
    _initialised = True


_initialised = False


def _was_initialised() -> bool:
    return _initialised


@pytest.fixture
def handled_signals():
    """This process handles SIGTERM and SIGINT itself, as the server and the worker do."""
    previous = {
        number: signal.signal(number, lambda *_: None) for number in (signal.SIGTERM, signal.SIGINT)
    }
    yield
    for number, handler in previous.items():
        signal.signal(number, handler)


def test_the_pool_processes_have_the_default_signal_behaviour(handled_signals):
    with forked_pool(2) as pool:
        assert pool.map(abs, [-1, -2, -3]) == [1, 2, 3]
        assert set(pool.map(_defaults, range(4))) == {(True, True)}


def _blocked(_: int) -> set[signal.Signals]:
    return signal.pthread_sigmask(signal.SIG_BLOCK, [])


def test_the_signals_are_blocked_only_until_a_process_has_its_defaults(handled_signals):
    """The SIGTERM of `Pool.terminate` may reach a process before it has put the default
    behaviour back: it is blocked from the fork until then (and then ends the process), and
    neither the parent nor a started process keeps it blocked."""
    before = _blocked(0)
    with forked_pool(2) as pool:
        assert _blocked(0) == before
        assert pool.map(_blocked, range(4)) == [before] * 4
    assert signal.SIGTERM not in before


def test_the_initializer_runs_in_each_process(handled_signals):
    with forked_pool(1, initializer=_ready) as pool:
        assert pool.apply(_was_initialised) is True
    assert _initialised is False  # in the children only
