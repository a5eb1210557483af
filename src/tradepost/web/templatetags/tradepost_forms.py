"""The error summary at the top of a form: every error, each linked to its field.

`{% error_summary form formset %}` renders `web/_error_summary.html` (nothing when the forms
are valid or unbound). Each field error links to the field's input (the first box of a group
of checkboxes), so a click, or the script's focus, lands where the fix is typed; errors of the
whole form are listed without a link. The fields themselves say which errors describe them
(`aria-describedby`, `aria-invalid`: Django's field groups, the formset rows' own markup).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms, template
from django.forms.formsets import BaseFormSet
from django.utils.translation import gettext as _

register = template.Library()

_GROUPED_WIDGETS = (forms.CheckboxSelectMultiple, forms.RadioSelect)


@dataclass(frozen=True)
class SummaryItem:
    text: str
    #: The id of the input to go to; "" for an error of the whole form.
    target: str = ""


def field_target(bound: forms.BoundField) -> str:
    """The id of the element a person types or clicks in to fix `bound`."""
    if isinstance(bound.field.widget, _GROUPED_WIDGETS):
        return f"{bound.auto_id}_0" if bound.auto_id else ""
    return bound.id_for_label or bound.auto_id or ""


def _form_items(form: forms.BaseForm, row_label: str = "") -> list[SummaryItem]:
    items = [SummaryItem(text=str(message)) for message in form.non_field_errors()]
    for bound in form:
        for message in bound.errors:
            label = str(bound.label)
            if row_label:
                label = _("%(row)s, %(label)s") % {"row": row_label, "label": label}
            items.append(
                SummaryItem(
                    text=_("%(label)s: %(message)s") % {"label": label, "message": message},
                    target=field_target(bound),
                )
            )
    return items


def summary_items(*forms_or_formsets: Any) -> list[SummaryItem]:
    """The errors of `forms_or_formsets` (forms and formsets, None skipped), in page order."""
    items: list[SummaryItem] = []
    for thing in forms_or_formsets:
        if thing is None or not thing.is_bound:
            continue
        if isinstance(thing, BaseFormSet):
            items.extend(SummaryItem(text=str(message)) for message in thing.non_form_errors())
            for number, form in enumerate(thing.forms, start=1):
                if form.errors and form.cleaned_data.get("DELETE"):
                    continue  # a row being removed: its errors do not count
                items.extend(_form_items(form, _("Row %(number)d") % {"number": number}))
        else:
            items.extend(_form_items(thing))
    return items


@register.inclusion_tag("web/_error_summary.html")
def error_summary(*forms_or_formsets: Any) -> dict[str, Any]:
    return {"items": summary_items(*forms_or_formsets)}
