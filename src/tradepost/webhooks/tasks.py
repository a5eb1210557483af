"""Background jobs of the webhooks app: one task per delivery attempt (the durable task
queue, docs/adr/0003-background-tasks.md). The task carries only the delivery's id; what to
send and whether it is still due are read from the database when it runs, so a task run
twice, late or after a redelivery sends nothing twice by itself (`services.delivery_attempt`
claims the row first)."""

from __future__ import annotations

from django_tasks import task

from tradepost.webhooks import services


@task()
def deliver_webhook(delivery_id: int) -> str:
    """Send one due delivery (see `services.delivery_attempt`)."""
    return services.delivery_attempt(delivery_id=delivery_id)
