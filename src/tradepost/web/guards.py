"""Who may open a page, decided once: the pages' guards on top of the accounts' one check
(`accounts.selectors.is_operator`, which services and endpoints call as `require_operator`)."""

from __future__ import annotations

from typing import Any

from django.http import Http404

from tradepost.accounts.selectors import is_operator


def operator_only(request: Any) -> None:
    """An operators' page is not found (404) for anybody else: it does not say it exists."""
    if not is_operator(request.user):
        raise Http404
