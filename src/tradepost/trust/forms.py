"""Forms of the verification pages: they only parse; the services decide."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from tradepost.messaging.forms import MultipleFileField
from tradepost.trust.models import CheckedItem
from tradepost.trust.services import REASON_MAX_LENGTH


class VerificationSubmitForm(forms.Form):
    """The company's documents, one field per kind (`DocumentKind` values), several files
    each; the service checks them (what they are, their size, how many)."""

    business_licence = MultipleFileField(label=_("Business licence"))
    export_licence = MultipleFileField(label=_("Export licence"))
    certification = MultipleFileField(label=_("Certifications"))
    other = MultipleFileField(label=_("Other documents"))


class ApproveForm(forms.Form):
    checked = forms.MultipleChoiceField(
        label=_("What you checked against the documents"),
        choices=CheckedItem.choices,
        widget=forms.CheckboxSelectMultiple,
        required=False,  # the service says that one is needed, as it does for the API
    )


class RejectForm(forms.Form):
    reason = forms.CharField(
        label=_("Why it is not approved (in the company's language)"),
        max_length=REASON_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
