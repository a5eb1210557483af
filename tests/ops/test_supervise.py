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


def test_a_hung_child_is_killed_and_restarted_a_dead_one_is_not_mistaken_for_it():
    started: list[FakeProcess] = []
    heartbeat = {"age": 1.0}

    def start() -> FakeProcess:
        started.append(FakeProcess())
        return started[-1]

    clock = Clock()
    supervisor = Supervisor(
        [Child("worker", start, silent=lambda: heartbeat["age"])], clock=clock, hung_after=90
    )
    supervisor.start()
    clock.now = 30.0
    heartbeat["age"] = 200.0  # silent, but it only just started: given its time
    supervisor.check()
    assert started[0].code is None
    clock.now = 100.0
    heartbeat["age"] = 5.0  # alive
    supervisor.check()
    assert started[0].code is None
    heartbeat["age"] = 95.0  # stopped (SIGSTOP) or frozen: killed
    supervisor.check()
    assert started[0].code == -9
    clock.now = 101.0
    supervisor.check()  # seen dead: restarted after the first delay
    clock.now = 102.5
    supervisor.check()
    assert len(started) == 2 and started[1].code is None
    clock.now = 150.0
    supervisor.check()  # the new one is given its time before its silence counts
    assert started[1].code is None
