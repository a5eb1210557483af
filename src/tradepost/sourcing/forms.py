"""Forms of the sourcing pages. They parse what the browser sends; the services validate."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from tradepost.catalog.forms import category_choices, plain_number
from tradepost.catalog.models import PaymentTerm, Unit
from tradepost.core.countries import country_choices
from tradepost.core.currencies import currency_choices
from tradepost.core.form_fields import ChoiceList, ChoiceText
from tradepost.core.incoterms import Incoterm
from tradepost.core.languages import LISTING_LANGUAGES, normalise_ui_language


def _blank(label: Any) -> list[tuple[str, Any]]:
    return [("", label)]


class BuyingRequestForm(forms.Form):
    title = forms.CharField(label=_("What do you want to buy?"), required=False)
    original_language = ChoiceText(
        label=_("Language of this request"), choices=LISTING_LANGUAGES, required=False
    )
    category_id = ChoiceText(label=_("Category"), required=False)
    description = forms.CharField(
        label=_("Description"), widget=forms.Textarea(attrs={"rows": 6}), required=False
    )
    quantity = forms.CharField(label=_("Quantity"), required=False)
    unit = ChoiceText(label=_("Unit"), choices=Unit.choices, required=False)
    target_unit_price = forms.CharField(label=_("Target unit price (optional)"), required=False)
    target_currency = ChoiceText(label=_("Currency"), required=False)
    destination_country = ChoiceText(label=_("Destination country"), required=False)
    destination_port = forms.CharField(label=_("Destination port"), required=False)
    preferred_incoterm = ChoiceText(
        label=_("Preferred Incoterm"),
        choices=_blank(_("No preference")) + list(Incoterm.choices),
        required=False,
    )
    required_certifications = forms.CharField(
        label=_("Required certifications"),
        help_text=_("Separate them with commas, e.g. CE, RoHS."),
        required=False,
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
    unit_price = forms.CharField(label=_("Unit price"), required=False)
    currency = ChoiceText(label=_("Currency"), required=False)
    moq = forms.CharField(label=_("Minimum order quantity"), required=False)
    lead_time_days = forms.CharField(label=_("Lead time (days)"), required=False)
    incoterm = ChoiceText(
        label=_("Incoterm"), choices=_blank(_("Choose")) + list(Incoterm.choices), required=False
    )
    named_place = forms.CharField(label=_("Named place"), required=False)
    payment_terms = ChoiceList(
        label=_("Payment terms"),
        choices=PaymentTerm.choices,
        widget=forms.CheckboxSelectMultiple,
        required=False,
    )
    valid_until = forms.CharField(
        label=_("Valid until"), widget=forms.DateInput(attrs={"type": "date"}), required=False
    )
    sample_available = forms.BooleanField(label=_("Samples available"), required=False)
    sample_cost = forms.CharField(label=_("Sample cost"), required=False)
    message = forms.CharField(
        label=_("Message to the buyer"), widget=forms.Textarea(attrs={"rows": 4}), required=False
    )

    def __init__(self, *args: Any, language: str = "en", **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["currency"].choices = _blank(  # type: ignore[attr-defined]
            _("Choose a currency")
        ) + currency_choices(normalise_ui_language(language))

    def service_fields(self, *, price_tiers: list[dict[str, str]] | None = None) -> dict[str, Any]:
        data = dict(self.cleaned_data)
        data["price_tiers"] = price_tiers or []
        return data


#: Most volume-price rows a quotation takes (the service's limit).
PRICE_TIERS_MAX = 10


class PriceTierForm(forms.Form):
    """One volume price: from this quantity on, this unit price. A blank row is skipped."""

    min_quantity = forms.DecimalField(
        label=_("From quantity"), required=False, max_digits=16, decimal_places=3
    )
    unit_price = forms.DecimalField(
        label=_("Unit price"), required=False, max_digits=16, decimal_places=4
    )

    def _positive(self, name: str) -> Decimal | None:
        value = self.cleaned_data.get(name)
        if value is not None and value <= 0:
            raise forms.ValidationError(_("Enter a number greater than zero."), code="positive")
        return value

    def clean_min_quantity(self) -> Decimal | None:
        return self._positive("min_quantity")

    def clean_unit_price(self) -> Decimal | None:
        return self._positive("unit_price")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        quantity, price = data.get("min_quantity"), data.get("unit_price")
        if quantity is not None and price is None and "unit_price" not in self.errors:
            self.add_error("unit_price", _("Give the unit price from this quantity on."))
        if price is not None and quantity is None and "min_quantity" not in self.errors:
            self.add_error("min_quantity", _("Give the quantity this price starts from."))
        return data


class BasePriceTierFormSet(forms.BaseFormSet):
    def _removed(self, form: forms.Form) -> bool:
        return bool(self.can_delete and form.cleaned_data.get("DELETE"))

    def clean(self) -> None:
        if any(self.errors):
            return
        seen: set[Decimal] = set()
        for form in self.forms:
            if self._removed(form):
                continue
            quantity = form.cleaned_data.get("min_quantity")
            if quantity is None:
                continue
            if quantity in seen:
                form.add_error("min_quantity", _("Another row already starts from this quantity."))
            seen.add(quantity)

    def tiers(self) -> list[dict[str, str]]:
        """The filled rows, as the quotation service takes them, by quantity."""
        rows = []
        for form in self.forms:
            if self._removed(form):
                continue
            quantity = form.cleaned_data.get("min_quantity")
            price = form.cleaned_data.get("unit_price")
            if quantity is not None and price is not None:
                rows.append({"min_quantity": str(quantity), "unit_price": str(price)})
        rows.sort(key=lambda row: Decimal(row["min_quantity"]))
        return rows


PriceTierFormSet = forms.formset_factory(
    PriceTierForm,
    formset=BasePriceTierFormSet,
    extra=2,
    can_delete=True,
    max_num=PRICE_TIERS_MAX,
    validate_max=True,
    absolute_max=PRICE_TIERS_MAX,
)
PRICE_TIERS_PREFIX = "tiers"


def _plain(value: Any) -> str:
    """A stored amount as a person writes it ("10000.000" -> "10000")."""
    try:
        return plain_number(Decimal(str(value)))
    except ArithmeticError:
        return str(value or "")


def price_tier_formset(data: Any = None, *, tiers: list[dict[str, Any]] | None = None) -> Any:
    """The volume-price rows of a quotation form: `tiers` (stored) shown, two blank rows to
    fill. A post without the rows' management fields (a script sending only the other
    fields) counts as no rows."""
    initial = [
        {
            "min_quantity": _plain(tier.get("min_quantity")),
            "unit_price": _plain(tier.get("unit_price")),
        }
        for tier in tiers or []
    ]
    if data is not None and f"{PRICE_TIERS_PREFIX}-TOTAL_FORMS" not in data:
        data = {
            f"{PRICE_TIERS_PREFIX}-TOTAL_FORMS": "0",
            f"{PRICE_TIERS_PREFIX}-INITIAL_FORMS": "0",
        }
    return PriceTierFormSet(data, initial=initial or None, prefix=PRICE_TIERS_PREFIX)


class DeclineForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), required=False)


class AttachmentForm(forms.Form):
    file = forms.FileField(
        label=_("Attach a file"),
        help_text=_("A PDF or an image (JPEG, PNG, WebP, GIF)."),
        widget=forms.ClearableFileInput(attrs={"accept": "application/pdf,image/*"}),
    )
