"""Forms of the banned-term pages and of the review queue: they only parse; the services
decide (`screening.services`, `catalog.services.product_review_*`)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from tradepost.core.form_fields import Text
from tradepost.core.languages import LISTING_LANGUAGES
from tradepost.screening.models import ANY_LANGUAGE
from tradepost.screening.services import BULK_MAX_LINES, NOTE_MAX_LENGTH, TERM_MAX_LENGTH

#: The reason a held listing is rejected with (as `catalog.services.REVIEW_REASON_MAX_LENGTH`).
REASON_MAX_LENGTH = 1000


def language_choices() -> list[tuple[str, Any]]:
    return [(ANY_LANGUAGE, _("Any language")), *LISTING_LANGUAGES]


class BannedTermForm(forms.Form):
    """One term (`services.BannedTermFields`)."""

    term = Text(
        label=_("Term"),
        limit=TERM_MAX_LENGTH,
        help_text=_(
            "A word or a phrase. Latin-script words match as whole words (and their plural); "
            "Chinese, Japanese, Korean and Thai match anywhere in the text. Traditional and "
            "Simplified Chinese, full-width letters and capitals match alike."
        ),
    )
    language = forms.ChoiceField(
        label=_("Texts it screens"),
        choices=language_choices,
        initial=ANY_LANGUAGE,
        help_text=_("Only texts written in this language, or in any language."),
    )
    note = Text(
        label=_("Why it is banned (for operators)"),
        limit=NOTE_MAX_LENGTH,
        required=False,
    )
    active = forms.BooleanField(label=_("Active"), required=False, initial=True)


class BannedTermBulkForm(forms.Form):
    """Terms pasted one per line, with one language and note for all of them."""

    terms = Text(
        label=_("Terms, one per line"),
        # The whole paste's room; the service counts the lines and says which are refused.
        limit=BULK_MAX_LINES * (TERM_MAX_LENGTH + 2),
        widget=forms.Textarea(attrs={"rows": 8}),
    )
    language = forms.ChoiceField(
        label=_("Texts they screen"), choices=language_choices, initial=ANY_LANGUAGE
    )
    note = Text(
        label=_("Why they are banned (for operators)"),
        limit=NOTE_MAX_LENGTH,
        required=False,
    )


class HeldRejectForm(forms.Form):
    reason = Text(
        label=_("Why it is not approved (in the company's language)"),
        limit=REASON_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
