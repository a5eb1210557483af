"""Background jobs of the sourcing app."""

from __future__ import annotations

from django_tasks import task

from tradepost.sourcing.services import request_expire_due


@task()
def expire_requests() -> int:
    """Expire open requests whose deadline has passed (run periodically)."""
    return request_expire_due()
