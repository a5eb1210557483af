"""The audit log in the operators' back office: read only, newest first."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin
from django.utils.html import format_html_join
from django.utils.translation import gettext_lazy as _

from tradepost.audit.models import AuditEntry
from tradepost.core.admin import ReadOnlyMixin


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("at", "actor_email", "action", "target_type", "target_label", "change_list")
    list_filter = ("action", "target_type", "at")
    search_fields = ("actor_email", "target_label", "target_id", "action")
    date_hierarchy = "at"
    fields = (
        "at",
        "actor_email",
        "action",
        "target_type",
        "target_id",
        "target_label",
        "change_list",
    )
    readonly_fields = fields

    @admin.display(description=_("before → after"))
    def change_list(self, entry: AuditEntry) -> str:
        return format_html_join(
            "",
            "<div><code>{}</code>: {} → {}</div>",
            (
                (
                    name,
                    json.dumps(values[0], ensure_ascii=False),
                    json.dumps(values[1], ensure_ascii=False),
                )
                for name, values in sorted(entry.changes.items())
            ),
        )
