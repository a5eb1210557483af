"""Forms of the membership pages. They parse input; the services validate and write."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from tradepost.core.countries import country_choices
from tradepost.core.languages import normalise_ui_language
from tradepost.membership.analytics import FIRST_YEAR, LAST_YEAR
from tradepost.membership.models import BillingDetails, Plan


class BillingForm(forms.Form):
    """The company's details for its invoices (`services.BillingFields`)."""

    legal_name = forms.CharField(label=_("Legal name"), required=False)
    address = forms.CharField(
        label=_("Address"), required=False, widget=forms.Textarea(attrs={"rows": 3})
    )
    country = forms.ChoiceField(label=_("Country"), choices=(), required=False)
    tax_id = forms.CharField(
        label=_("Tax number"),
        required=False,
        help_text=_("VAT, GST or the unified social credit code, as your accountant needs it."),
    )
    email = forms.CharField(
        label=_("Billing email"),
        required=False,
        help_text=_("Where your accounts department reads invoices (optional)."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        country = self.fields["country"]
        assert isinstance(country, forms.ChoiceField)
        language = normalise_ui_language(get_language())
        country.choices = [("", _("Choose a country")), *country_choices(language)]

    @staticmethod
    def initial_for(details: BillingDetails) -> dict[str, str]:
        return {name: getattr(details, name) for name in BillingForm.base_fields}


class AnalyticsFilterForm(forms.Form):
    """The operator's filters of the membership analytics (`analytics.membership_analytics`
    takes `plan_code` and `year`): a paid plan by its code and a year, each optional."""

    plan = forms.ChoiceField(label=_("Plan"), choices=(), required=False)
    year = forms.IntegerField(
        label=_("Year"), required=False, min_value=FIRST_YEAR, max_value=LAST_YEAR
    )

    def __init__(self, *args: Any, plans: list[Plan], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        plan = self.fields["plan"]
        assert isinstance(plan, forms.ChoiceField)
        language = normalise_ui_language(get_language())
        plan.choices = [("", _("All plans")), *((p.code, p.name_for(language)) for p in plans)]

    def filters(self) -> dict[str, Any]:
        """The valid filters as the selector's arguments (none when the form is invalid)."""
        if not self.is_valid():
            return {}
        return {"plan_code": self.cleaned_data["plan"] or None, "year": self.cleaned_data["year"]}
