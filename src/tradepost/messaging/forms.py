"""Forms of the inquiry and reply pages: they only parse; the services decide."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from tradepost.catalog.models import Unit
from tradepost.core.form_fields import Text
from tradepost.messaging.models import MESSAGE_MAX_LENGTH


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Several files in one input; the services check their type and size."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput(attrs={"accept": ".pdf,.jpg,.jpeg,.png"}))
        kwargs.setdefault("required", False)
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        single = super().clean
        if isinstance(data, list | tuple):
            return [single(item, initial) for item in data if item]
        return [single(data, initial)] if data else []


ATTACHMENTS_HELP = _("Up to 3 files: PDF, JPEG or PNG, at most 5 MB each.")


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
    message = Text(
        label=_("Message"),
        limit=MESSAGE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text=_(
            "Say what you need: specifications, quantity, destination and when you need it."
        ),
    )
    attachments = MultipleFileField(label=_("Attachments"), help_text=ATTACHMENTS_HELP)


class ReplyForm(forms.Form):
    body = Text(
        label=_("Your reply"),
        limit=MESSAGE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 5}),
    )
    attachments = MultipleFileField(label=_("Attachments"), help_text=ATTACHMENTS_HELP)
