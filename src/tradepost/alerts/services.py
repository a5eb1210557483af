"""Writes on trade alerts: save a search, change it, pause it, delete it, unsubscribe by the
emailed link. Validation lives here (ADR 0020); the page and the API only parse."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict, Unpack

from django.core import signing
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tradepost.alerts.errors import AlertError, AlertErrorCode
from tradepost.alerts.models import AlertKind, Frequency, SavedSearch
from tradepost.companies.actors import actor_for
from tradepost.core.cleaning import FieldErrors, FieldInvalid, clean_choice, clean_flag, clean_text
from tradepost.core.languages import UI_LANGUAGES, normalise_ui_language
from tradepost.membership.selectors import benefit
from tradepost.search.alerting import FILTER_PARAMS
from tradepost.search.filters import param_values
from tradepost.search.sketches import sketch_of

#: The longest saved query (the search box's own limit).
MAX_QUERY_CHARS = 200
#: Values one filter may hold (countries, Incoterms...), and characters each.
MAX_FILTER_VALUES = 20
MAX_FILTER_VALUE_CHARS = 40

UNSUBSCRIBE_SALT = "tradepost.alerts.unsubscribe"
#: How long an emailed unsubscribe link works.
UNSUBSCRIBE_MAX_AGE = 90 * 86_400


class AlertFields(TypedDict, total=False):
    """What a person sets on a trade alert: the input of `saved_search_create` and
    `saved_search_update` (absent keys are left as they are on update)."""

    kind: str
    query: str
    params: Mapping[str, Any]
    language: str
    frequency: str
    paused: bool | str | None


def _company(actor: Any) -> Any:
    company = actor.company
    if company is None:
        raise AlertError(AlertErrorCode.NO_COMPANY, _("You do not belong to a company."))
    return company


def clean_params(raw: Any, *, kind: str) -> dict[str, list[str]]:
    """The saved filters: only the search page's parameters of this kind, as lists of
    short texts. An unknown filter, or a value the search would ignore, is refused (saved
    as it is, the alert would silently match more than the user asked for)."""
    if raw is None or raw == "":
        return {}
    if not isinstance(raw, Mapping):
        raise FieldInvalid(_("Filters must be a mapping of names to values."))
    allowed = FILTER_PARAMS.get(kind, ())
    unknown = sorted(str(name)[:40] for name in raw if name not in allowed)
    if unknown:
        raise FieldInvalid(
            _("Unknown filter: %(names)s. Known filters: %(known)s.")
            % {"names": ", ".join(unknown), "known": ", ".join(allowed)}
        )
    cleaned: dict[str, list[str]] = {}
    for name in allowed:
        if name not in raw:
            continue
        value = raw[name]
        items = value if isinstance(value, list | tuple) else [value]
        if len(items) > MAX_FILTER_VALUES:
            raise FieldInvalid(_("Too many values for the filter %(name)s.") % {"name": name})
        texts = []
        for item in items:
            if isinstance(item, bool):
                item = "1" if item else ""
            if isinstance(item, int | float):
                item = str(item)
            text = clean_text(item, max_length=MAX_FILTER_VALUE_CHARS)
            if text:
                texts.append(text)
        if texts:
            cleaned[name] = texts
    _check_values(kind, cleaned)
    return cleaned


def _check_values(kind: str, params: dict[str, list[str]]) -> None:
    """Each value must be one the search understands (parsed as the results page parses it)."""
    from tradepost.search.alerting import parse_filters

    parsed = parse_filters(kind, params)
    for name, values in params.items():
        understood = parse_filters(kind, {name: values})
        if understood == type(parsed)():
            raise FieldInvalid(
                _("The filter %(name)s has a value the search does not understand.")
                % {"name": name}
            )
        if name == "category":
            _check_category(understood.category_id)


def _check_category(category_id: int | None) -> None:
    from tradepost.search.engine import category_tree

    if category_id is None or category_id not in category_tree(must_have=[category_id]).nodes:
        raise FieldInvalid(_("No such category."))


def _clean(
    fields: Mapping[str, Any], *, errors: FieldErrors, partial: bool, kind: str | None
) -> dict[str, Any]:
    known = set(AlertFields.__annotations__)
    for name in sorted(set(fields) - known):
        errors.add(name, _("Unknown field."))
    cleaned: dict[str, Any] = {}
    if "kind" in fields or not partial:
        cleaned["kind"] = errors.clean(
            "kind", clean_choice, fields.get("kind"), allowed=AlertKind.values, required=True
        )
    kind = cleaned.get("kind") or kind
    if "query" in fields or not partial:
        query = errors.clean(
            "query", clean_text, fields.get("query", ""), max_length=MAX_QUERY_CHARS
        )
        cleaned["query"] = query
    if ("params" in fields or not partial) and kind:
        cleaned["params"] = errors.clean("params", clean_params, fields.get("params"), kind=kind)
    if "language" in fields or not partial:
        language = errors.clean(
            "language",
            clean_choice,
            fields.get("language") or "en",
            allowed=UI_LANGUAGES,
            case=str.lower,
        )
        cleaned["language"] = normalise_ui_language(language) if language else None
    if "frequency" in fields or not partial:
        cleaned["frequency"] = errors.clean(
            "frequency",
            clean_choice,
            fields.get("frequency") or Frequency.DAILY,
            allowed=Frequency.values,
        )
    if "paused" in fields:
        cleaned["paused"] = errors.clean("paused", clean_flag, fields.get("paused"))
    query, params = cleaned.get("query"), cleaned.get("params")
    if not partial and not errors.by_field and not query and not params:
        errors.add("query", _("Enter words to look for, or choose at least one filter."))
    return cleaned


def alert_limit(company: Any) -> int:
    """How many trade alerts the company's plan lets it keep."""
    return int(benefit(company, "saved_searches") or 0)


@transaction.atomic
def saved_search_create(*, actor: Any, **fields: Unpack[AlertFields]) -> SavedSearch:
    """Save a search for the actor's company, within its plan's number of alerts."""
    actor = actor if hasattr(actor, "company") else actor_for(actor)
    company = _company(actor)
    errors = FieldErrors()
    cleaned = _clean(fields, errors=errors, partial=False, kind=None)
    errors.raise_if_any(AlertError, AlertErrorCode.INVALID)
    # The company's row is the lock: two saves at once cannot both take the last slot.
    type(company).objects.select_for_update().filter(pk=company.pk).first()
    limit = alert_limit(company)
    if SavedSearch.objects.filter(company=company).count() >= limit:
        raise AlertError(
            AlertErrorCode.LIMIT_REACHED,
            ngettext(
                "Your plan keeps %(limit)d alert. Delete one, or choose a plan with more.",
                "Your plan keeps %(limit)d alerts. Delete one, or choose a plan with more.",
                limit,
            )
            % {"limit": limit},
        )
    alert = SavedSearch(
        company=company,
        user=actor.user,
        keys=sketch_of(cleaned["query"]),
        **cleaned,
    )
    alert.save()
    return alert


@transaction.atomic
def saved_search_update(
    *, actor: Any, alert: SavedSearch, **fields: Unpack[AlertFields]
) -> SavedSearch:
    """Change an alert's words, filters, frequency or pause it (its kind stays)."""
    actor = actor if hasattr(actor, "company") else actor_for(actor)
    _owned(actor, alert)
    errors = FieldErrors()
    if "kind" in fields and fields["kind"] != alert.kind:
        errors.add("kind", _("An alert keeps what it looks for; save a new one instead."))
    fields = {name: value for name, value in fields.items() if name != "kind"}  # type: ignore[assignment]
    cleaned = _clean(fields, errors=errors, partial=True, kind=alert.kind)
    errors.raise_if_any(AlertError, AlertErrorCode.INVALID)
    locked = SavedSearch.objects.select_for_update().get(pk=alert.pk)
    for name, value in cleaned.items():
        setattr(locked, name, value)
    if not locked.query and not locked.params:
        raise AlertError(
            AlertErrorCode.INVALID,
            _("Enter words to look for, or choose at least one filter."),
            field="query",
        )
    locked.keys = sketch_of(locked.query)
    locked.save()
    return locked


@transaction.atomic
def saved_search_delete(*, actor: Any, alert: SavedSearch) -> None:
    actor = actor if hasattr(actor, "company") else actor_for(actor)
    _owned(actor, alert)
    SavedSearch.objects.filter(pk=alert.pk).delete()


def _owned(actor: Any, alert: SavedSearch) -> None:
    from tradepost.alerts.errors import AlertNotFound

    if actor.company_id != alert.company_id:
        raise AlertNotFound()


def unsubscribe_token(alert: SavedSearch) -> str:
    """A signed link token that pauses this one alert without signing in (RFC 8058)."""
    return signing.dumps({"a": alert.pk, "u": alert.user_id}, salt=UNSUBSCRIBE_SALT)


def unsubscribe_with_token(*, token: Any) -> tuple[str, SavedSearch | None]:
    """Pause the alert a token names: ("done", alert), ("already", alert) when it was
    paused already (a link used twice), or ("expired" | "invalid", None)."""
    from tradepost.alerts.selectors import unsubscribe_target

    status, alert = unsubscribe_target(token)
    if alert is None or status != "ready":
        return status, alert
    with transaction.atomic():
        paused = SavedSearch.objects.filter(pk=alert.pk, paused=False).update(paused=True)
    alert.refresh_from_db()
    return ("done" if paused else "already"), alert


def params_from_query_dict(kind: str, params: Any) -> dict[str, list[str]]:
    """The filter parameters of a search page's query string (`request.GET`), for "Alert
    me": only the kind's filters, as lists."""
    return {
        name: values
        for name in FILTER_PARAMS.get(kind, ())
        if (values := param_values(params, name))
    }
