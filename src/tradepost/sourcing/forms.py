"""Forms of the sourcing pages. They parse what the browser sends; the services validate."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from tradepost.catalog.forms import category_choices, plain_number
from tradepost.catalog.models import PaymentTerm, Unit
from tradepost.core.countries import country_choices
from tradepost.core.currencies import currency_choices
from tradepost.core.languages import LISTING_LANGUAGES, normalise_ui_language
from tradepost.core.incoterms import Incoterm


def _blank(label: Any) -> list[tuple[str, Any]]:
    return [("", label)]


class BuyingRequestForm(forms.Form):
    title = forms.CharField(label=_("What do you want to buy?"), required=False, max_length=400)
    original_language = forms.ChoiceField(
        label=_("Language of this request"), choices=LISTING_LANGUAGES, required=False
    )
    category_id = forms.ChoiceField(label=_("Category"), required=False)
    description = forms.CharField(
        label=_("Description"), widget=forms.Textarea(attrs={"rows": 6}), required=False
    )
    quantity = forms.CharField(label=_("Quantity"), required=False, max_length=40)
    unit = forms.ChoiceField(label=_("Unit"), choices=Unit.choices, required=False)
    target_unit_price = forms.CharField(
        label=_("Target unit price (optional)"), required=False, max_length=40
    )
    target_currency = forms.ChoiceField(label=_("Currency"), required=False)
    destination_country = forms.ChoiceField(label=_("Destination country"), required=False)
    destination_port = forms.CharField(label=_("Destination port"), required=False, max_length=200)
    preferred_incoterm = forms.ChoiceField(
        label=_("Preferred Incoterm"),
        choices=_blank(_("No preference")) + list(Incoterm.choices),
        required=False,
    )
    required_certifications = forms.CharField(
        label=_("Required certifications"),
        help_text=_("Separate them with commas, e.g. CE, RoHS."),
        required=False,
        max_length=2000,
    )
    deadline = forms.CharField(
        label=_("Deadline for quotations"),
        widget=forms.DateInput(attrs={"type": "date"}),
        required=False,
    )
    sealed = forms.BooleanField(
        label=_("Sealed: suppliers do not see how many quotations arrived"), required=False
    )
    reveal_identity = forms.BooleanField(
        label=_("Show our company name to suppliers"), required=False
    )

    def __init__(self, *args: Any, language: str = "en", **kwargs: Any):
        super().__init__(*args, **kwargs)
        language = normalise_ui_language(language)
        self.fields["category_id"].choices = category_choices(language)  # type: ignore[attr-defined]
        self.fields["target_currency"].choices = _blank(  # type: ignore[attr-defined]
            _("Choose a currency")
        ) + currency_choices(language)
        self.fields["destination_country"].choices = _blank(  # type: ignore[attr-defined]
            _("Choose a country")
        ) + country_choices(language)

    def service_fields(self, *, only: set[str] | None = None) -> dict[str, Any]:
        data = dict(self.cleaned_data)
        if only is not None:
            data = {name: value for name, value in data.items() if name in only}
        return data


class QuotationForm(forms.Form):
    unit_price = forms.CharField(label=_("Unit price"), required=False, max_length=40)
    currency = forms.ChoiceField(label=_("Currency"), required=False)
    price_tiers = forms.CharField(
        label=_("Price tiers (optional)"),
        help_text=_("One per line: minimum quantity, unit price. For example: 1000, 2.10"),
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        max_length=2000,
    )
    moq = forms.CharField(label=_("Minimum order quantity"), required=False, max_length=40)
    lead_time_days = forms.CharField(label=_("Lead time (days)"), required=False, max_length=10)
    incoterm = forms.ChoiceField(
        label=_("Incoterm"), choices=_blank(_("Choose")) + list(Incoterm.choices), required=False
    )
    named_place = forms.CharField(label=_("Named place"), required=False, max_length=200)
    payment_terms = forms.MultipleChoiceField(
        label=_("Payment terms"),
        choices=PaymentTerm.choices,
        widget=forms.CheckboxSelectMultiple,
        required=False,
    )
    valid_until = forms.CharField(
        label=_("Valid until"), widget=forms.DateInput(attrs={"type": "date"}), required=False
    )
    sample_available = forms.BooleanField(label=_("Samples available"), required=False)
    sample_cost = forms.CharField(label=_("Sample cost"), required=False, max_length=40)
    message = forms.CharField(
        label=_("Message to the buyer"), widget=forms.Textarea(attrs={"rows": 4}), required=False
    )

    def __init__(self, *args: Any, language: str = "en", **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["currency"].choices = _blank(  # type: ignore[attr-defined]
            _("Choose a currency")
        ) + currency_choices(normalise_ui_language(language))

    def service_fields(self) -> dict[str, Any]:
        data = dict(self.cleaned_data)
        tiers: list[Any] = []
        for line in (data.get("price_tiers") or "").splitlines():
            if not line.strip():
                continue
            parts = [part.strip() for part in line.replace("，", ",").split(",")]
            if len(parts) != 2:
                tiers.append("bad")  # the service refuses it with a message
                continue
            tiers.append({"min_quantity": parts[0], "unit_price": parts[1]})
        data["price_tiers"] = tiers
        return data


class DeclineForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), max_length=500, required=False)


class AttachmentForm(forms.Form):
    file = forms.FileField(
        label=_("Attach a file"),
        help_text=_("A PDF or an image (JPEG, PNG, WebP, GIF)."),
        widget=forms.ClearableFileInput(attrs={"accept": "application/pdf,image/*"}),
    )
