"""Forms of the inquiry and reply pages: they only parse; the services decide."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from tradepost.catalog.models import Unit
from tradepost.messaging.models import MESSAGE_MAX_LENGTH


class InquiryForm(forms.Form):
    quantity = forms.DecimalField(
        label=_("Quantity"),
        required=False,
        min_value=0,
        max_digits=14,
        decimal_places=3,
        widget=forms.NumberInput(attrs={"step": "any", "min": "0"}),
    )
    unit = forms.ChoiceField(label=_("Unit"), required=False, choices=[("", "—"), *Unit.choices])
    message = forms.CharField(
        label=_("Message"),
        max_length=MESSAGE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text=_(
            "Say what you need: specifications, quantity, destination and when you need it."
        ),
    )


class ReplyForm(forms.Form):
    body = forms.CharField(
        label=_("Your reply"),
        max_length=MESSAGE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 5}),
    )
