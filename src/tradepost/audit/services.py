"""Recording operator actions. Call `audit_record` inside the transaction of the change, so
an action and its entry are written together or not at all."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from django.db.models import Model
from django.utils import timezone

from tradepost.audit.models import AuditEntry

LABEL_MAX_LENGTH = 300


def _plain(value: Any) -> Any:
    """A value as JSON can hold it (decimals and dates as text, files by name)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")  # 0.850000 and 0.85 are the same rate
    if isinstance(value, date | datetime):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    return str(getattr(value, "name", value))


def field_changes(
    before: Mapping[str, Any], after: Mapping[str, Any], fields: Iterable[str] | None = None
) -> dict[str, list[Any]]:
    """{"field": [before, after]} for each field whose value differs."""
    names = list(fields) if fields is not None else sorted(set(before) | set(after))
    changes = {}
    for name in names:
        old, new = _plain(before.get(name)), _plain(after.get(name))
        if old != new:
            changes[name] = [old, new]
    return changes


def snapshot(obj: Model, fields: Iterable[str]) -> dict[str, Any]:
    return {name: getattr(obj, name) for name in fields}


def audit_record(
    *,
    actor: Any,
    action: str,
    target: Model,
    changes: Mapping[str, list[Any]] | None = None,
    label: str | None = None,
) -> AuditEntry:
    """Write one entry: `actor` (a user, or None for the command line) did `action` to
    `target`, with `changes` as {"field": [before, after]}."""
    user = actor if getattr(actor, "is_authenticated", False) else None
    return AuditEntry.objects.create(
        at=timezone.now(),
        actor=user,
        actor_email=getattr(user, "email", "") or "",
        action=action,
        target_type=target._meta.label_lower,
        target_id=str(target.pk),
        target_label=(label if label is not None else str(target))[:LABEL_MAX_LENGTH],
        changes=dict(changes or {}),
    )
