"""Keeping `tradepost serve`'s processes running: the web server and the worker.

A child that exits while the supervisor is not stopping is started again after a delay that
doubles with each quick failure (1 s, 2 s, 4 s ... at most a minute) and starts over once the
child has run for a minute: a crashing worker does not spin, and one that died once comes back
at once. Before this, a dead worker left search silently behind the database and a dead
gunicorn ended `tradepost serve`.

A child may also say how long it has been silent (`Child.silent`: the worker's heartbeat);
one silent for longer than `Supervisor.hung_after`, having run at least that long, is hung
(stopped with SIGSTOP, or frozen): it is killed, and restarted as a dead one is.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

logger = logging.getLogger(__name__)

FIRST_DELAY = 1.0
MAX_DELAY = 60.0
#: A child that ran this long before exiting is restarted after the first delay again.
HEALTHY_RUN = 60.0


class Process(Protocol):
    def poll(self) -> int | None: ...

    def terminate(self) -> None: ...

    def kill(self) -> None: ...

    def wait(self, timeout: float | None = None) -> int: ...


@dataclass
class Child:
    name: str
    start: Callable[[], Process]
    process: Process | None = None
    started_at: float = 0.0
    delay: float = FIRST_DELAY
    restart_at: float | None = None
    restarts: int = 0
    #: Seconds since the child last showed it was alive (None: it never did, or it cannot
    #: tell); None for a child that shows nothing.
    silent: Callable[[], float | None] | None = None


@dataclass
class Supervisor:
    children: list[Child]
    clock: Callable[[], float] = time.monotonic
    stopping: bool = False
    #: A child silent (and running) for longer than this is hung.
    hung_after: float = 90.0
    _log: list[str] = field(default_factory=list)

    def start(self) -> None:
        for child in self.children:
            self._start(child)

    def _start(self, child: Child) -> None:
        child.process = child.start()
        child.started_at = self.clock()
        child.restart_at = None

    def check(self) -> None:
        """Look at every child once: schedule the restart of one that exited, start one whose
        delay is over."""
        now = self.clock()
        for child in self.children:
            if self.stopping:
                return
            if child.restart_at is not None:
                if now >= child.restart_at:
                    child.restarts += 1
                    self._start(child)
                continue
            code = child.process.poll() if child.process is not None else None
            if code is None:
                self._kill_if_hung(child, now)
                continue
            if now - child.started_at >= HEALTHY_RUN:
                child.delay = FIRST_DELAY
            message = f"{child.name} exited with code {code}; restarting in {child.delay:g} s"
            logger.error(message)
            self._log.append(message)
            child.restart_at = now + child.delay
            child.delay = min(child.delay * 2, MAX_DELAY)

    def _kill_if_hung(self, child: Child, now: float) -> None:
        if child.silent is None or child.process is None:
            return
        silent = child.silent()
        if now - child.started_at < self.hung_after or silent is None:
            return
        if silent > self.hung_after:
            message = f"{child.name} was silent for {silent:.0f} s; killing it to restart it"
            logger.error(message)
            self._log.append(message)
            child.process.kill()  # a stopped process ends at SIGKILL too

    def stop(self, timeout: float = 10.0) -> None:
        self.stopping = True
        running = [c.process for c in self.children if c.process is not None]
        for process in running:
            if process.poll() is None:
                process.terminate()
        for process in running:
            try:
                process.wait(timeout=timeout)
            except Exception:  # subprocess.TimeoutExpired
                process.kill()

    def run(self, *, interval: float = 1.0) -> None:
        """Check the children every `interval` seconds until `stop` is called."""
        self.start()
        while not self.stopping:
            time.sleep(interval)
            self.check()
