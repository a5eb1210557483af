"""The load benchmark's reference clients: `/healthz` only (one database query, no page),
asked by as many clients as the mixed run, with no think time."""

from __future__ import annotations

from locust import FastHttpUser, constant, task


class Probe(FastHttpUser):
    wait_time = constant(0)

    @task
    def health(self) -> None:
        self.client.get("/healthz", name="healthz")
