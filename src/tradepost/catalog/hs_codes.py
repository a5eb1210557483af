"""HS 2022 codes as people type them: normalising, looking up and validating.

A code is a chapter (2 digits), a heading (4) or a subheading (6). People write them with
dots and spaces ("8516.10", "8516 10") and, on Chinese keyboards, in full-width digits
("８５１６．１０"); all of these normalise to "851610". The list itself is the `HSCode`
table, loaded from `catalog/data/hs2022.tsv` (see reference_data.py).
"""

from __future__ import annotations

import unicodedata

from django.utils.translation import gettext as _

from tradepost.catalog.models import HSCode

HS_CODE_LENGTHS = (2, 4, 6)
_SEPARATORS = str.maketrans("", "", " .\t\u00a0\u3000")


def normalise_hs_code(raw: str) -> str:
    """Drop spaces and dots: "8516.10" -> "851610"; "" for a blank value.

    Other characters are kept, so that a malformed value stays malformed.
    """
    if not raw:
        return ""
    return unicodedata.normalize("NFKC", raw).translate(_SEPARATORS)


def is_well_formed_hs_code(code: str) -> bool:
    """True for 2, 4 or 6 ASCII digits (after normalising)."""
    code = normalise_hs_code(code)
    return len(code) in HS_CODE_LENGTHS and code.isascii() and code.isdigit()


def hs_code_lookup(code: str) -> HSCode | None:
    """The HS 2022 code, or None when the value is malformed or not in the list."""
    code = normalise_hs_code(code)
    if not is_well_formed_hs_code(code):
        return None
    return HSCode.objects.filter(pk=code).first()


def hs_code_error(code: str) -> str | None:
    """A message for the person who typed `code`, or None when it is fine.

    A blank value is not an error here: the HS code is optional on a listing, and a form that
    requires one says so itself.
    """
    normalised = normalise_hs_code(code)
    if not normalised:
        return None
    if not is_well_formed_hs_code(normalised):
        return _("An HS code has 2, 4 or 6 digits, for example 8516 or 8516.10.")
    if not HSCode.objects.filter(pk=normalised).exists():
        return _("%(code)s is not an HS 2022 code.") % {"code": normalised}
    return None
