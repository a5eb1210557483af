"""The header's form that chooses the currency prices are shown in."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from tradepost.money.display import AS_LISTED, UNKNOWN_CHOICE, display_currencies

#: The longest return address the form takes (a page's path and query).
NEXT_MAX_LENGTH = 2000


class DisplayCurrencyForm(forms.Form):
    currency = forms.ChoiceField(
        label=_("Show prices in"), choices=(), error_messages={"invalid_choice": UNKNOWN_CHOICE}
    )
    next = forms.CharField(required=False, max_length=NEXT_MAX_LENGTH)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["currency"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [(code, code) for code in (AS_LISTED, *display_currencies())]
