"""Form fields that only parse (docs/adr/0020-one-input-layer.md): what a browser sends,
turned into the names and Python values the services take, with the widgets and choices the
pages draw. Nothing here refuses a value: the service validates it and its refusal is shown
on the form, the same refusal the API gets for the same value.

Django's `ChoiceField` and `MultipleChoiceField` check the value against their list and answer
with a message of their own; these two keep the list for the widget only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms


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
    """One choice of a list (drawn as a select), handed to the service as sent."""

    widget = forms.Select


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
