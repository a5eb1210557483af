"""Forms of the verification, report and moderation pages: they only parse; the services
decide."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from tradepost.core.form_fields import Text
from tradepost.messaging.forms import MultipleFileField
from tradepost.trust.models import CheckedItem, ModerationAction, ReportReason, ReportTarget
from tradepost.trust.services import NOTE_MAX_LENGTH, REASON_MAX_LENGTH


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
    reason = Text(
        label=_("Why it is not approved (in the company's language)"),
        limit=REASON_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


# --- reports and moderation ------------------------------------------------------------------


class ReportForm(forms.Form):
    """A report (`services.ReportFields`): what is reported comes with the page's address."""

    target = forms.ChoiceField(choices=ReportTarget.choices, widget=forms.HiddenInput)
    target_id = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    reason = forms.ChoiceField(
        label=_("What is wrong with it?"), choices=ReportReason.choices, widget=forms.RadioSelect
    )
    note = Text(
        label=_("Anything the operators should know (optional)"),
        limit=NOTE_MAX_LENGTH,
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
    )


class DecisionForm(forms.Form):
    """An operator's decision on the reports of one target."""

    action = forms.ChoiceField(label=_("Action"), choices=ModerationAction.choices)
    reason = forms.ChoiceField(
        label=_("Reason the company is told"),
        choices=[("", "—"), *ReportReason.choices],
        required=False,  # the service says when one is needed, as it does for the API
    )
    message = Text(
        label=_("Message to the company, in its language (optional)"),
        limit=NOTE_MAX_LENGTH,
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    days = forms.IntegerField(
        label=_("Suspend for this many days (empty: until an operator lifts it)"),
        required=False,  # the service checks the range and that the action is a suspension
    )


class ModerationForm(DecisionForm):
    """An operator's action on any listing, company, request or message, by its id."""

    target = forms.ChoiceField(label=_("What"), choices=ReportTarget.choices)
    target_id = forms.IntegerField(label=_("Its id"), min_value=1)
    action = forms.ChoiceField(
        label=_("Action"),
        choices=[c for c in ModerationAction.choices if c[0] != ModerationAction.DISMISS],
    )

    field_order = ("target", "target_id", "action", "reason", "message", "days")
