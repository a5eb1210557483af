"""Forms of the product dashboard. They parse what the browser sends; the services validate."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from tradepost.catalog.models import Category, PaymentTerm, Product, Unit
from tradepost.core.countries import country_choices
from tradepost.core.currencies import currency_choices
from tradepost.core.form_fields import ChoiceList, ChoiceText
from tradepost.core.incoterms import Incoterm
from tradepost.core.languages import LISTING_LANGUAGES, normalise_ui_language

# "name: value", with an ASCII or a full-width colon.
_ATTRIBUTE_SEPARATOR = re.compile(r"[:：]")


def category_choices(language: str) -> list[tuple[Any, Any]]:
    """Leaf categories grouped under their top-level category, named in `language`."""
    categories = list(
        Category.objects.only(
            "id", "parent_id", "path", "is_leaf", "name_en", "name_zh_hans", "name_zh_hant"
        ).order_by("path")
    )
    by_id = {category.pk: category for category in categories}
    groups: dict[int, list[tuple[int, str]]] = {}
    for category in categories:
        if not category.is_leaf:
            continue
        chain = [category]
        while chain[-1].parent_id is not None and chain[-1].parent_id in by_id:
            chain.append(by_id[chain[-1].parent_id])
        chain.reverse()
        top, below = chain[0], chain[1:] or chain
        label = " › ".join(node.name_for(language) for node in below)
        groups.setdefault(top.pk, []).append((category.pk, label))
    choices: list[tuple[Any, Any]] = [("", _("Choose a category"))]
    for top_id, leaves in groups.items():
        choices.append((by_id[top_id].name_for(language), leaves))
    return choices


def plain_number(value: Decimal | None) -> str:
    """A stored decimal as a person writes it: 100.000 -> "100", 2.5000 -> "2.5"."""
    if value is None:
        return ""
    return f"{value.normalize():f}"


def attributes_to_text(attributes: Any) -> str:
    lines = []
    for item in attributes or []:
        if isinstance(item, dict):
            lines.append(f"{item.get('name', '')}: {item.get('value', '')}")
    return "\n".join(lines)


class ProductForm(forms.Form):
    title = forms.CharField(
        label=_("Title"), required=False, widget=forms.TextInput(attrs={"maxlength": 200})
    )
    original_language = ChoiceText(
        label=_("Language of this listing"), choices=LISTING_LANGUAGES, initial="en", required=False
    )
    sku = forms.CharField(
        label=_("SKU"),
        required=False,
        widget=forms.TextInput(attrs={"maxlength": 64}),
        help_text=_(
            "Your own code for this product, if you use one. A catalogue upload finds the "
            "product by it."
        ),
    )
    category_id = ChoiceText(label=_("Category"), required=False)
    description = forms.CharField(
        label=_("Description"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 10}),
        help_text=_(
            "Paragraphs, lists, tables and bold text are kept; scripts and styles are not."
        ),
    )
    attributes = forms.CharField(
        label=_("Attributes"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text=_(
            'One attribute a line, written as "name: value", for example "Material: 304 steel".'
        ),
    )
    keywords = forms.CharField(
        label=_("Keywords"),
        required=False,
        help_text=_("Other words buyers may search for, separated by commas."),
    )
    moq = forms.DecimalField(label=_("Minimum order quantity"), required=False)
    moq_unit = ChoiceText(label=_("Unit"), required=False)
    price_min = forms.DecimalField(label=_("Lowest unit price"), required=False)
    price_max = forms.DecimalField(label=_("Highest unit price"), required=False)
    currency = ChoiceText(label=_("Currency"), initial="USD", required=False)
    incoterms = ChoiceList(
        label=_("Incoterms"),
        required=False,
        choices=Incoterm.choices,
        widget=forms.CheckboxSelectMultiple,
    )
    port_of_loading = forms.CharField(label=_("Port of loading"), required=False)
    payment_terms = ChoiceList(
        label=_("Payment terms"),
        required=False,
        choices=PaymentTerm.choices,
        widget=forms.CheckboxSelectMultiple,
    )
    lead_time_days = forms.IntegerField(label=_("Lead time (days)"), required=False)
    supply_capacity = forms.DecimalField(label=_("Supply capacity per month"), required=False)
    supply_capacity_unit = ChoiceText(label=_("Supply capacity unit"), required=False)
    hs_code = forms.CharField(
        label=_("HS code"),
        required=False,
        help_text=_("The Harmonized System code of the goods, 2 to 6 digits."),
    )
    origin_country = ChoiceText(label=_("Country of origin"), required=False)

    def __init__(self, *args: Any, language: str = "en", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        language = normalise_ui_language(language)
        fields = self.fields
        fields["category_id"].choices = category_choices(language)  # type: ignore[attr-defined]
        units = [("", _("Choose a unit")), *Unit.choices]
        fields["moq_unit"].choices = units  # type: ignore[attr-defined]
        fields["supply_capacity_unit"].choices = units  # type: ignore[attr-defined]
        fields["currency"].choices = currency_choices(language)  # type: ignore[attr-defined]
        fields["origin_country"].choices = [  # type: ignore[attr-defined]
            ("", _("Not stated")),
            *country_choices(language),
        ]

    @staticmethod
    def initial_for(product: Product) -> dict[str, Any]:
        return {
            "title": product.title,
            "original_language": product.original_language,
            "sku": product.sku,
            "category_id": product.category_id,
            "description": product.description,
            "attributes": attributes_to_text(product.attributes),
            "keywords": product.keywords,
            "moq": plain_number(product.moq),
            "moq_unit": product.moq_unit,
            "price_min": plain_number(product.price_min),
            "price_max": plain_number(product.price_max),
            "currency": product.currency,
            "incoterms": product.incoterms,
            "port_of_loading": product.port_of_loading,
            "payment_terms": product.payment_terms,
            "lead_time_days": product.lead_time_days,
            "supply_capacity": plain_number(product.supply_capacity),
            "supply_capacity_unit": product.supply_capacity_unit,
            "hs_code": product.hs_code,
            "origin_country": product.origin_country,
        }

    def clean_attributes(self) -> list[dict[str, str]]:
        rows = []
        for number, line in enumerate(self.cleaned_data["attributes"].splitlines(), start=1):
            if not line.strip():
                continue
            parts = _ATTRIBUTE_SEPARATOR.split(line, maxsplit=1)
            if len(parts) != 2:
                raise forms.ValidationError(
                    _('Line %(number)d: write each attribute as "name: value".'),
                    params={"number": number},
                    code="attribute_line",
                )
            rows.append({"name": parts[0].strip(), "value": parts[1].strip()})
        return rows

    def service_fields(self) -> dict[str, Any]:
        """The parsed fields, named as `product_create` and `product_update` take them."""
        data = dict(self.cleaned_data)
        for name in ("title", "description", "keywords", "port_of_loading", "hs_code", "sku"):
            data[name] = data.get(name) or ""
        return data


class ProductImageForm(forms.Form):
    image = forms.FileField(
        label=_("Photo"),
        help_text=_("JPEG, PNG, WebP or GIF."),
        widget=forms.ClearableFileInput(
            attrs={"accept": "image/jpeg,image/png,image/webp,image/gif"}
        ),
    )


class ProductTranslationForm(forms.Form):
    title = forms.CharField(
        label=_("Title"), required=False, widget=forms.TextInput(attrs={"maxlength": 200})
    )
    description = forms.CharField(
        label=_("Description"), required=False, widget=forms.Textarea(attrs={"rows": 10})
    )


class ShowcaseForm(forms.Form):
    """Choose one of the company's published products for its paid showcase (the page offers
    them in a list; the service checks the id, the plan's slots and the product's state)."""

    product_id = forms.IntegerField(label=_("Product"), min_value=1, max_value=2**63 - 1)


class ProductPublishForm(forms.Form):
    """Publishing a product: the supplier's confirmation that it is meant although the
    company has published a listing much like it (`services.product_publish`)."""

    allow_duplicate = forms.BooleanField(label=_("Publish anyway"), required=False)
