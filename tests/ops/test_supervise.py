"""`tradepost serve` keeps its web server and worker running: a child that exits is started
again, after a delay that grows while it keeps failing and starts over once it ran a while."""

from __future__ import annotations

from tradepost.ops import supervise
from tradepost.ops.supervise import Child, Supervisor


class FakeProcess:
    def __init__(self) -> None:
        self.code: int | None = None
        self.terminated = False

    def poll(self) -> int | None:
        return self.code

    def terminate(self) -> None:
        self.terminated = True
        self.code = -15

    def kill(self) -> None:
        self.code = -9

    def wait(self, timeout: float | None = None) -> int:
        return self.code or 0


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _supervised():
    started: list[FakeProcess] = []

    def start() -> FakeProcess:
        started.append(FakeProcess())
        return started[-1]

    clock = Clock()
    supervisor = Supervisor([Child("worker", start)], clock=clock)
    supervisor.start()
    return supervisor, started, clock


def test_a_dead_child_is_restarted_after_a_growing_delay():
    supervisor, started, clock = _supervised()
    restarts_at = []
    for _ in range(4):
        started[-1].code = 1  # dies at once
        supervisor.check()
        before = len(started)
        while len(started) == before:
            clock.now += 0.5
            supervisor.check()
        restarts_at.append(clock.now)
    gaps = [b - a for a, b in zip([0.0, *restarts_at], restarts_at, strict=False)]
    assert gaps[1:] == sorted(gaps[1:]) and gaps[-1] >= 4  # 1, 2, 4, 8 s...
    assert supervisor.children[0].restarts == 4


def test_the_delay_starts_over_after_a_healthy_run():
    supervisor, started, clock = _supervised()
    for _ in range(3):  # three quick failures: the next delay is long
        started[-1].code = 1
        supervisor.check()
        clock.now += supervise.MAX_DELAY
        supervisor.check()
    clock.now += supervise.HEALTHY_RUN  # then it ran for a minute
    started[-1].code = 1
    supervisor.check()
    assert supervisor.children[0].restart_at == clock.now + supervise.FIRST_DELAY


def test_stopping_ends_the_children_and_restarts_nothing():
    supervisor, started, clock = _supervised()
    supervisor.stop()
    assert started[-1].terminated
    clock.now += 100
    supervisor.check()
    assert len(started) == 1
