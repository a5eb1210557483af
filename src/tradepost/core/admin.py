"""What the apps' back-office pages share: admin pages that only read, since the services
write (with their checks and audit entries)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest


class ReadOnlyMixin:
    """Nothing is added, changed or deleted here: the services write. Put it before
    `admin.ModelAdmin` or an inline among the bases."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
