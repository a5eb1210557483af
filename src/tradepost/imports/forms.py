"""Forms of the catalogue upload pages. They parse what the browser sends; the services
check it (an unknown encoding or mode is refused there, with its message)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from tradepost.imports.models import ImportMode
from tradepost.imports.reading import ENCODINGS


def encoding_choices(blank: Any) -> list[tuple[str, Any]]:
    return [("", blank), *((code, label) for code, label in ENCODINGS.items())]


class EncodingSelect(forms.Select):
    """The encodings by their names (UTF-8, Big5, Windows-1252), which are never translated:
    their options say so (`translate="no"`); the blank choice and the described ones are
    interface text."""

    def create_option(
        self,
        name: str,
        value: Any,
        label: Any,
        selected: Any,
        index: int,
        subindex: int | None = None,
        attrs: Any = None,
    ) -> dict[str, Any]:
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        if isinstance(label, str) and value in ENCODINGS:  # a name, not a lazy translation
            option["attrs"]["translate"] = "no"
        return option


class UploadForm(forms.Form):
    catalogue = forms.FileField(
        label=_("Catalogue file"),
        help_text=_("CSV or Excel (XLSX), one row per product, the first row naming the columns."),
        widget=forms.ClearableFileInput(attrs={"accept": ".csv,.txt,.xlsx"}),
    )
    pictures = forms.FileField(
        label=_("Pictures (ZIP)"),
        required=False,
        help_text=_("Optional: a ZIP file of the pictures the rows name in their Pictures column."),
        widget=forms.ClearableFileInput(attrs={"accept": ".zip"}),
    )
    encoding = forms.ChoiceField(
        label=_("Encoding of a CSV file"),
        required=False,
        choices=encoding_choices(_("Find it for me")),
        widget=EncodingSelect,
    )
    mode = forms.ChoiceField(
        label=_("If some rows are rejected"),
        choices=ImportMode.choices,
        initial=ImportMode.ALL_OR_NOTHING,
        widget=forms.RadioSelect,
    )


class ConfirmForm(forms.Form):
    mode = forms.ChoiceField(
        label=_("If some rows are rejected"), choices=ImportMode.choices, widget=forms.RadioSelect
    )


class RecheckForm(forms.Form):
    encoding = forms.ChoiceField(
        label=_("Read the file in"),
        choices=[(code, label) for code, label in ENCODINGS.items()],
        widget=EncodingSelect,
    )
