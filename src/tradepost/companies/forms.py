"""Forms of the company management pages. They parse input; the services validate and write
(docs/adr/0020-one-input-layer.md): lengths are only the widgets' `maxlength`, choices only the
widgets' lists, and `companies.validation` refuses what the API would refuse, in the same words.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from tradepost.companies import validation
from tradepost.companies.models import BusinessType, Company, EmployeeRange, Market, Role
from tradepost.core.countries import country_choices
from tradepost.core.form_fields import ChoiceList, ChoiceText, Text
from tradepost.core.languages import LISTING_LANGUAGES, normalise_ui_language

#: What the browser is told a field needs; the service refuses a blank one itself, with the
#: other fields' refusals (a form's `required` would stop before the service is asked).
_NEEDED = {"required": True}


def _country_field_choices() -> list[tuple[str, Any]]:
    return [("", _("Choose a country")), *country_choices(normalise_ui_language(get_language()))]


class CompanyCreateForm(forms.Form):
    legal_name = Text(
        label=_("Legal name"),
        limit=validation.LEGAL_NAME_MAX,
        required=False,
        widget=forms.TextInput(attrs=_NEEDED),
        help_text=_(
            "As registered, in its own language and script, e.g. 义乌市星辰日用品有限公司."
        ),
    )
    english_name = Text(
        label=_("English name"),
        limit=validation.ENGLISH_NAME_MAX,
        required=False,
        help_text=_("Shown to English readers and used for the address of your company page."),
    )
    country = ChoiceText(label=_("Country"), required=False, widget=forms.Select(attrs=_NEEDED))
    business_types = ChoiceList(
        label=_("Business types"),
        choices=BusinessType.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    original_language = ChoiceText(
        label=_("Profile language"),
        choices=LISTING_LANGUAGES,
        required=False,
        widget=forms.Select(attrs=_NEEDED),
        help_text=_("The language you write your profile and listings in."),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        country = self.fields["country"]
        assert isinstance(country, ChoiceText)
        country.choices = _country_field_choices()
        self.fields["original_language"].initial = normalise_ui_language(get_language())


class CompanyProfileForm(CompanyCreateForm):
    province = Text(label=_("Province or state"), limit=validation.PLACE_MAX, required=False)
    city = Text(label=_("City"), limit=validation.PLACE_MAX, required=False)
    year_established = forms.IntegerField(label=_("Year established"), required=False)
    employee_range = ChoiceText(
        label=_("Employees"),
        choices=[("", _("Not stated")), *EmployeeRange.choices],
        required=False,
    )
    main_markets = ChoiceList(
        label=_("Main markets"),
        choices=Market.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    main_products = Text(
        label=_("Main products"),
        limit=validation.MAIN_PRODUCTS_MAX,
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    certifications = Text(
        label=_("Certifications"),
        required=False,
        # The whole list's room; the service checks each name and how many there are.
        limit=validation.CERTIFICATIONS_MAX_COUNT * (validation.CERTIFICATION_MAX + 2),
        help_text=_("Separate them with commas, e.g. ISO 9001, CE, BSCI."),
    )
    export_share = forms.IntegerField(
        label=_("Export share (%)"),
        required=False,
        help_text=_("The part of your sales that goes abroad, from 0 to 100."),
    )
    website = Text(
        label=_("Website"),
        limit=validation.WEBSITE_MAX,
        required=False,
        widget=forms.URLInput(attrs={"placeholder": "https://"}),
    )
    description = forms.CharField(
        label=_("Description"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 10}),
        help_text=_(
            "Basic formatting (paragraphs, lists, bold, links, tables) is kept; "
            "scripts and styles are removed."
        ),
    )

    @classmethod
    def initial_for(cls, company: Company) -> dict:
        initial = {name: getattr(company, name) for name in validation.PROFILE_FIELDS}
        initial["certifications"] = ", ".join(company.certifications or [])
        return initial


class LogoForm(forms.Form):
    logo = forms.FileField(
        label=_("Logo"),
        help_text=_("A JPEG, PNG, WebP or GIF image of at most 5 MB."),
        widget=forms.ClearableFileInput(attrs={"accept": "image/*"}),
    )


class InviteForm(forms.Form):
    # `services.invitation_create` checks the address (format and length) itself.
    email = Text(label=_("Email"), limit=254, widget=forms.EmailInput)
    role = forms.ChoiceField(
        label=_("Role"),
        choices=[(Role.MEMBER, Role.MEMBER.label), (Role.ADMIN, Role.ADMIN.label)],
        initial=Role.MEMBER,
        help_text=_("Admins can edit the profile and invite or remove people."),
    )


class RoleForm(forms.Form):
    role = forms.ChoiceField(
        label=_("Role"),
        choices=[(Role.MEMBER, Role.MEMBER.label), (Role.ADMIN, Role.ADMIN.label)],
    )
