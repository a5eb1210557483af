"""Forms of the webhook pages: they only parse what a browser sends into the services' field
names (`services.EndpointFields`); the services check the address, the lengths and the
events."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from tradepost.core.events import EventType
from tradepost.webhooks.models import URL_MAX_LENGTH
from tradepost.webhooks.services import DESCRIPTION_MAX_LENGTH


class EndpointForm(forms.Form):
    """An endpoint's address, description and events (`services.EndpointFields`)."""

    url = forms.CharField(
        label=_("Address (URL)"),
        help_text=_(
            "Where your system receives events, for example "
            "https://erp.example.com/tradepost/webhooks. Use https://: the events carry "
            "your company's business."
        ),
        required=False,  # the service says that one is needed, as it does for the API
        widget=forms.URLInput(attrs={"maxlength": URL_MAX_LENGTH, "inputmode": "url"}),
    )
    description = forms.CharField(
        label=_("Description"),
        help_text=_("For your colleagues: what receives these events."),
        required=False,
        widget=forms.TextInput(attrs={"maxlength": DESCRIPTION_MAX_LENGTH}),
    )
    events = forms.MultipleChoiceField(
        label=_("Events"),
        choices=EventType.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )


class RotateSecretForm(forms.Form):
    """Rotating an endpoint's secret: whether the old one keeps signing for a while."""

    keep_previous = forms.BooleanField(
        label=_("Keep the old secret signing too for a while, so your system can switch"),
        required=False,
        initial=True,
    )
