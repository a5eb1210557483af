"""Form fields that only parse (docs/adr/0020-one-input-layer.md): what a browser sends,
turned into the names and Python values the services take, with the widgets and choices the
pages draw. Nothing here refuses a value: the service validates it and its refusal is shown
on the form, the same refusal the API gets for the same value.

Django's `ChoiceField` and `MultipleChoiceField` check the value against their list and answer
with a message of their own; `ChoiceText` and `ChoiceList` keep the list for the widget only.
Likewise a `CharField`'s `max_length` refuses longer text with Django's message; `Text` only
draws its `limit` as the widget's `maxlength`, a hint to the browser, and leaves the length to
the service.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.core.validators import ProhibitNullCharactersValidator
from django.utils.html import format_html
from django.utils.safestring import mark_safe


class Text(forms.CharField):
    """Text handed to the service as sent (stripped, as `CharField` does). `limit`, the
    service's longest, is drawn as the widget's `maxlength` for the browser; it is not
    checked here (no `max_length`, so no `MaxLengthValidator`)."""

    def __init__(self, *, limit: int | None = None, **kwargs: Any) -> None:
        if "max_length" in kwargs:
            raise TypeError("Text takes `limit`, drawn on the widget; the service checks it")
        # Set before `Field.__init__`, which reads `widget_attrs`.
        self.limit = limit
        super().__init__(**kwargs)

    def widget_attrs(self, widget: forms.Widget) -> dict[str, Any]:
        attrs = super().widget_attrs(widget)
        if self.limit is not None and not widget.is_hidden:
            attrs["maxlength"] = str(self.limit)
        return attrs


class QuickSelect(forms.Select):
    """A select whose options are written in Python, in one pass, rather than through one
    template include each: the product form's thousand leaf categories, countries and
    currencies took a quarter of a second a render through the templates. Draws the same
    HTML as `forms.Select` (groups, the selected option, the widget's attributes)."""

    template_name = "core/widgets/quick_select.html"

    def get_context(self, name: str, value: Any, attrs: dict[str, Any] | None) -> dict[str, Any]:
        context = forms.Widget.get_context(self, name, value, attrs)
        chosen = {str(v) for v in context["widget"]["value"]}
        parts: list[str] = []
        for option_value, label in self.choices:
            if isinstance(label, list | tuple):
                parts.append(format_html('<optgroup label="{}">', option_value))
                parts.extend(_option(v, inner, chosen) for v, inner in label)
                parts.append("</optgroup>")
            else:
                parts.append(_option(option_value, label, chosen))
        # Each option is escaped by format_html.
        context["widget"]["options_html"] = mark_safe("".join(parts))
        return context


def _option(value: Any, label: Any, chosen: set[str]) -> str:
    value = "" if value is None else str(value)
    selected = mark_safe(" selected") if value in chosen else ""
    return format_html('<option value="{}"{}>{}</option>', value, selected, label)


class _WidgetChoices(forms.Field):
    """The list of choices, kept by the widget alone (templates and widgets read `choices`)."""

    def __init__(self, *, choices: Iterable[tuple[Any, Any]] = (), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.choices = choices

    @property
    def choices(self) -> list[tuple[Any, Any]]:
        return list(self.widget.choices)  # type: ignore[attr-defined]

    @choices.setter
    def choices(self, value: Iterable[tuple[Any, Any]]) -> None:
        self.widget.choices = list(value)  # type: ignore[attr-defined]


class ChoiceText(_WidgetChoices, forms.CharField):
    """One choice of a list (drawn as a select), handed to the service as sent: whatever it
    holds, a NUL included, is not one of the list, and the service says so (`CharField`
    would answer "Null characters are not allowed." first)."""

    widget = QuickSelect

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.validators = [
            validator
            for validator in self.validators
            if not isinstance(validator, ProhibitNullCharactersValidator)
        ]


class ChoiceList(_WidgetChoices):
    """Several choices of a list (drawn as checkboxes unless another widget is given), handed to
    the service as the list of texts sent."""

    widget = forms.CheckboxSelectMultiple

    def to_python(self, value: Any) -> list[str]:
        if value in self.empty_values:
            return []
        if isinstance(value, str):
            return [value]
        return [str(item) for item in value]
