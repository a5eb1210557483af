"""What the apps' back-office pages share: admin pages that only read, since the services
write (with their checks and audit entries), and actions that run a service on each selected
row."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django import forms
from django.contrib import messages
from django.contrib.admin import ModelAdmin
from django.http import HttpRequest
from django.utils.translation import gettext as _

from tradepost.core.currencies import is_currency
from tradepost.core.errors import DomainError

Row = TypeVar("Row")


class NoAddChangeMixin:
    """Rows are viewed (and, where the admin allows, deleted) but never added or changed here.
    Put it before `admin.ModelAdmin` or an inline among the bases."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyMixin(NoAddChangeMixin):
    """Nothing is added, changed or deleted here: the services write."""

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class CurrencyFieldMixin:
    """For an admin's model form with a `currency` field: an ISO 4217 code, in capitals, or the
    form's error (the admin saves through a service, which cannot answer on the form)."""

    cleaned_data: dict[str, Any]

    def clean_currency(self) -> str:
        code = str(self.cleaned_data.get("currency") or "").strip().upper()
        if not is_currency(code):
            raise forms.ValidationError(_("Unknown currency code."))
        return code


def run_each(
    model_admin: ModelAdmin,
    request: HttpRequest,
    rows: Iterable[Row],
    act: Callable[[Row], object],
    *,
    label: Callable[[Row], object],
    done: Callable[[int], str],
) -> int:
    """An admin action's body: `act(row)` (a service call) on each row. A refusal is shown
    beside `label(row)` and the others go on; then `done(n)` says how many succeeded.
    Returns that count."""
    count = 0
    for row in rows:
        try:
            act(row)
        except DomainError as error:
            model_admin.message_user(
                request, f"{label(row)}: {error.message}", level=messages.ERROR
            )
        else:
            count += 1
    model_admin.message_user(request, done(count))
    return count
