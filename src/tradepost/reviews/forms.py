"""Forms of the review pages: they only parse what a browser sends into the services' field
names (`services.ReviewFields`, `ReplyFields`); the services check lengths and ranges."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from tradepost.reviews.services import HIDE_REASON_MAX_LENGTH, REPLY_MAX_LENGTH, TEXT_MAX_LENGTH

RATING_CHOICES = [
    ("5", _("5 stars: excellent")),
    ("4", _("4 stars: good")),
    ("3", _("3 stars: acceptable")),
    ("2", _("2 stars: poor")),
    ("1", _("1 star: very poor")),
]


class ReviewForm(forms.Form):
    """A buyer's review (`services.ReviewFields`)."""

    rating = forms.CharField(
        label=_("Your rating"),
        required=False,  # the service says that one is needed, as it does for the API
        widget=forms.RadioSelect(choices=RATING_CHOICES),
    )
    text = forms.CharField(
        label=_("Your review"),
        help_text=_(
            "How the order went: quality, communication, delivery on time. Other buyers read it "
            "on the supplier's page."
        ),
        required=False,
        widget=forms.Textarea(attrs={"rows": 5, "maxlength": TEXT_MAX_LENGTH}),
    )


class ReplyForm(forms.Form):
    """The supplier's reply (`services.ReplyFields`)."""

    reply = forms.CharField(
        label=_("Your company's reply"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "maxlength": REPLY_MAX_LENGTH}),
    )


class HideForm(forms.Form):
    """An operator hides a review, saying why."""

    reason = forms.CharField(
        label=_("Why it is hidden (the two companies read it)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "maxlength": HIDE_REASON_MAX_LENGTH}),
    )
