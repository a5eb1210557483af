"""Writes of the screening app: operators add (one by one or pasted, one term per line),
change, deactivate and delete banned terms; and the emails that tell a company its listing is
held for review, approved or rejected (docs/adr/0023-banned-terms.md).

Each write checks that the actor is an operator (so pages, the API and the admin behave the
same), runs in one transaction and writes its audit entry in it. Two terms that fold alike
are one term: the second is refused (`DUPLICATE`) by a check and, when two operators add it at
once, by the unique constraint on the folded form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict, Unpack

from django.db import IntegrityError, transaction
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tradepost.accounts.models import User
from tradepost.accounts.selectors import require_operator
from tradepost.audit.services import audit_record, field_changes, snapshot
from tradepost.companies.models import Company
from tradepost.companies.selectors import company_managers
from tradepost.core.cleaning import (
    FieldErrors,
    FieldInvalid,
    clean_choice,
    clean_flag,
    clean_text,
    refuse_unstorable,
    text_or_none,
)
from tradepost.core.languages import LISTING_LANGUAGES, normalise_ui_language
from tradepost.notify.services import link_in, queue_email
from tradepost.screening.errors import BannedTermNotFound, ScreeningError, ScreeningErrorCode
from tradepost.screening.matching import canonical
from tradepost.screening.models import ANY_LANGUAGE, BannedTerm

TERM_MAX_LENGTH = 100
#: The folded form's room (NFKC can lengthen a term: ligatures, circled numbers).
NORMALIZED_MAX_LENGTH = 300
NOTE_MAX_LENGTH = 300
#: Lines one paste may hold, and terms the whole list may hold.
BULK_MAX_LINES = 1_000
LIST_MAX_TERMS = 20_000
#: What a term's language may be: any, or one a listing may be written in.
TERM_LANGUAGES = (ANY_LANGUAGE, *(code for code, _label in LISTING_LANGUAGES))
#: The fields an audit entry of a term records.
_AUDITED = ("term", "normalized", "language", "note", "active")


class BannedTermFields(TypedDict, total=False):
    """What an operator writes about a term (the web form and the API body send exactly
    these). Absent keys are left as they are on update."""

    term: str
    language: str  # "any" or a listing language code
    note: str
    active: bool


BANNED_TERM_FIELDS = frozenset(BannedTermFields.__annotations__)


# --- cleaning --------------------------------------------------------------------------------


def clean_term(value: Any) -> tuple[str, str]:
    """A term as written (one line, at most 100 characters) and its folded form."""
    text = refuse_unstorable(clean_text(value, max_length=TERM_MAX_LENGTH, required=True))
    form = canonical(text)
    if not form:
        raise FieldInvalid(_("Write a word or a phrase: letters, digits or Chinese characters."))
    if form.isascii() and len(form.replace(" ", "")) < 2:
        raise FieldInvalid(_("A term in Latin letters needs at least two letters or digits."))
    if len(form) > NORMALIZED_MAX_LENGTH:
        raise FieldInvalid(_("This term is too long once folded."))
    return text, form


def _clean_language(value: Any) -> str:
    code = clean_choice(
        value,
        allowed=TERM_LANGUAGES,
        case=str.lower,
        message=_("Choose “any” or a language from the list."),
    )
    return code or ANY_LANGUAGE


def _clean_note(value: Any) -> str:
    return refuse_unstorable(clean_text(value, max_length=NOTE_MAX_LENGTH))


def _clean_active(value: Any) -> bool:
    if value is None or isinstance(value, bool | str):
        return clean_flag(value)
    raise FieldInvalid(_("Say yes or no."))


def _clean_fields(data: Mapping[str, Any]) -> dict[str, Any]:
    """The given fields cleaned (`term` gives `term` and `normalized`); refused together."""
    unknown = set(data) - BANNED_TERM_FIELDS
    if unknown:
        raise TypeError(f"unknown banned term fields: {', '.join(sorted(unknown))}")
    errors = FieldErrors()
    clean: dict[str, Any] = {}
    if "term" in data:
        pair = errors.clean("term", clean_term, data["term"])
        if pair is not None:
            clean["term"], clean["normalized"] = pair
    for name, cleaner in (
        ("language", _clean_language),
        ("note", _clean_note),
        ("active", _clean_active),
    ):
        if name in data:
            clean[name] = errors.clean(name, cleaner, data[name])
    errors.raise_if_any(ScreeningError, ScreeningErrorCode.INVALID)
    return clean


def _duplicate(term: str, existing: BannedTerm | None) -> ScreeningError:
    if existing is None:
        message = _("“%(term)s” is on the list already.") % {"term": term}
    else:
        message = _("“%(term)s” is on the list already, as “%(existing)s”.") % {
            "term": term,
            "existing": existing.term,
        }
    return ScreeningError(ScreeningErrorCode.DUPLICATE, message, field="term")


def _check_room(adding: int) -> None:
    if BannedTerm.objects.count() + adding > LIST_MAX_TERMS:
        raise ScreeningError(
            ScreeningErrorCode.LIST_FULL,
            _("The list holds at most %(limit)d terms: delete some before adding more.")
            % {"limit": LIST_MAX_TERMS},
        )


def _full_clean(term: BannedTerm) -> None:
    ScreeningError.clean_model(term, code=ScreeningErrorCode.INVALID, validate_unique=False)


def _insert(term: BannedTerm) -> bool:
    """Save a new term; False when the same folded form was saved meanwhile."""
    try:
        with transaction.atomic():
            term.save()
    except IntegrityError:
        return False
    return True


def _audit(actor: Any, action: str, term: BannedTerm, changes: dict[str, list[Any]]) -> None:
    audit_record(actor=actor, action=f"banned_term.{action}", target=term, changes=changes)


# --- the list --------------------------------------------------------------------------------


@transaction.atomic
def banned_term_create(*, actor: Any, **fields: Unpack[BannedTermFields]) -> BannedTerm:
    """Add a term to the list (operators). `term` is required; `language` defaults to any,
    `active` to true."""
    require_operator(actor)
    if "term" not in fields:
        raise ScreeningError(ScreeningErrorCode.INVALID, _("This field is required."), field="term")
    clean = _clean_fields(fields)
    existing = BannedTerm.objects.filter(normalized=clean["normalized"]).first()
    if existing is not None:
        raise _duplicate(clean["term"], existing)
    _check_room(1)
    term = BannedTerm(created_by=actor, **clean)
    _full_clean(term)
    if not _insert(term):
        raise _duplicate(clean["term"], None)
    _audit(actor, "create", term, field_changes({}, snapshot(term, _AUDITED)))
    return term


@transaction.atomic
def banned_term_update(
    *, actor: Any, banned_term: BannedTerm, **fields: Unpack[BannedTermFields]
) -> BannedTerm:
    """Change the given fields of a term (operators); `active=False` deactivates it: it stays
    on the list and matches nothing."""
    require_operator(actor)
    clean = _clean_fields(fields)
    locked = BannedTerm.objects.select_for_update().filter(pk=banned_term.pk).first()
    if locked is None:
        raise BannedTermNotFound()
    if "normalized" in clean:
        other = (
            BannedTerm.objects.filter(normalized=clean["normalized"]).exclude(pk=locked.pk).first()
        )
        if other is not None:
            raise _duplicate(clean["term"], other)
    before = snapshot(locked, _AUDITED)
    for name, value in clean.items():
        setattr(locked, name, value)
    changes = field_changes(before, snapshot(locked, _AUDITED))
    if not changes:
        return locked
    _full_clean(locked)
    try:
        with transaction.atomic():
            locked.save()
    except IntegrityError:
        raise _duplicate(clean.get("term", locked.term), None) from None
    _audit(actor, "update", locked, changes)
    return locked


@transaction.atomic
def banned_term_delete(*, actor: Any, banned_term: BannedTerm) -> None:
    """Remove a term from the list (operators); the audit log keeps what it was."""
    require_operator(actor)
    locked = BannedTerm.objects.select_for_update().filter(pk=banned_term.pk).first()
    if locked is None:
        return
    _audit(actor, "delete", locked, field_changes(snapshot(locked, _AUDITED), {}))
    locked.delete()


@dataclass(frozen=True)
class BulkResult:
    """What a paste added, and the lines skipped as already on the list (or repeated)."""

    added: list[BannedTerm] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _pasted_lines(value: Any) -> list[tuple[int, str]]:
    """(line number, text) of each line that is not blank."""
    text = text_or_none(value)
    if text is None:
        raise FieldInvalid(_("Enter text."))
    lines = [(number, line.strip()) for number, line in enumerate(text.splitlines(), start=1)]
    lines = [(number, line) for number, line in lines if line]
    if not lines:
        raise FieldInvalid(_("Paste at least one term, one per line."))
    if len(lines) > BULK_MAX_LINES:
        raise FieldInvalid(
            _("Paste at most %(limit)d terms at a time; there are %(count)d.")
            % {"limit": BULK_MAX_LINES, "count": len(lines)}
        )
    return lines


def _clean_pasted_terms(value: Any) -> list[tuple[str, str]]:
    """Each pasted line as (term, folded form); every bad line named in one refusal."""
    problems: list[str] = []
    cleaned = []
    for number, line in _pasted_lines(value):
        try:
            cleaned.append(clean_term(line))
        except FieldInvalid as refusal:
            problems.extend(
                _("Line %(number)d: %(problem)s") % {"number": number, "problem": message}
                for message in refusal.messages
            )
    if problems:
        raise FieldInvalid(*problems[:20])
    return cleaned


@transaction.atomic
def banned_terms_bulk_add(
    *, actor: Any, terms: Any, language: Any = ANY_LANGUAGE, note: Any = ""
) -> BulkResult:
    """Add pasted terms, one per line, all in `language` with the same `note` (operators).
    A line that is not a valid term refuses the whole paste, every bad line named; a term
    on the list already (or pasted twice) is skipped and reported. Each term added is
    audited."""
    require_operator(actor)
    errors = FieldErrors()
    pasted = errors.clean("terms", _clean_pasted_terms, terms)
    clean_language = errors.clean("language", _clean_language, language)
    clean_note = errors.clean("note", _clean_note, note)
    errors.raise_if_any(ScreeningError, ScreeningErrorCode.INVALID)
    assert pasted is not None and clean_language is not None and clean_note is not None
    known = set(
        BannedTerm.objects.filter(normalized__in=[form for _term, form in pasted]).values_list(
            "normalized", flat=True
        )
    )
    result = BulkResult()
    fresh: list[tuple[str, str]] = []
    for text, form in pasted:
        if form in known:
            result.skipped.append(text)
        else:
            known.add(form)
            fresh.append((text, form))
    _check_room(len(fresh))
    for text, form in fresh:
        term = BannedTerm(
            term=text, normalized=form, language=clean_language, note=clean_note, created_by=actor
        )
        _full_clean(term)
        if not _insert(term):
            result.skipped.append(text)
            continue
        _audit(actor, "create", term, field_changes({}, snapshot(term, _AUDITED)))
        result.added.append(term)
    return result


# --- telling the company about its listing -----------------------------------------------------

#: The supplier's page of a listing (reversed in the company's language, for emails).
LISTING_PAGE = "products:update"

_SUBJECTS = {
    "held": gettext_lazy("Your listing is held for review on Tradepost"),
    "approved": gettext_lazy("Your listing is published after review"),
    "rejected": gettext_lazy("Your listing was not approved for publication"),
}


def _recipients(company: Company, also: Any = None) -> list[User]:
    """The company's active owner and admins, and `also` (the person who published) when
    they act for the company."""
    people = list(company_managers(company.pk))
    if (
        also is not None
        and getattr(also, "is_active", False)
        and all(person.pk != also.pk for person in people)
        and User.objects.filter(pk=also.pk, membership__company=company).exists()
    ):
        people.append(also)
    return people


def tell_listing_review(
    *,
    company: Company,
    listing_title: str,
    product_id: int,
    outcome: str,
    reason: str = "",
    publisher: Any = None,
) -> None:
    """Email the company's owner and admins (and, for a hold, the person who published), in
    the company's language, that its listing is `outcome`: "held" for review, "approved"
    (published) or "rejected" (back to the drafts, with the operator's `reason`). Which
    term held it is not told: see docs/adr/0023-banned-terms.md. Sent after the commit."""
    language = normalise_ui_language(company.original_language)
    with translation.override(language):
        link = link_in(language, LISTING_PAGE, kwargs={"pk": product_id})
        company_name = company.name_for(language)
    context = {
        "outcome": outcome,
        "title": listing_title,
        "company_name": company_name,
        "reason": reason,
        "link": link,
    }
    for person in _recipients(company, publisher if outcome == "held" else None):
        queue_email(
            to=person.email,
            subject=_SUBJECTS[outcome],
            template="screening_review",
            context=context,
            language=language,
        )
