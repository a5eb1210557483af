"""Forms of the trade-alert pages: they only parse what a browser sends into the services'
field names (`services.AlertFields`); the services check the words, the filters and the
frequency (docs/adr/0020-one-input-layer.md)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from tradepost.alerts.models import AlertKind, Frequency
from tradepost.alerts.services import MAX_QUERY_CHARS
from tradepost.core.form_fields import ChoiceText, Text


class AlertCreateForm(forms.Form):
    """ "Alert me" on a search results page: the search's words, what it looks for (the
    tab) and how often to tell. The filters come from the page's query string and the
    language from the page's address (the view adds both)."""

    query = Text(label=_("Words"), limit=MAX_QUERY_CHARS, required=False)
    kind = ChoiceText(label=_("Looks for"), choices=AlertKind.choices, required=False)
    frequency = ChoiceText(
        label=_("How often"), choices=Frequency.choices, required=False, initial=Frequency.DAILY
    )


class AlertEditForm(forms.Form):
    """An alert's words and how often it tells (what it looks for and its filters stay:
    another search is another alert)."""

    query = Text(label=_("Words"), limit=MAX_QUERY_CHARS, required=False)
    frequency = ChoiceText(label=_("How often"), choices=Frequency.choices, required=False)
