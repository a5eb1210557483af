"""The list of banned terms: operators add (one by one or pasted), change, deactivate and
delete terms; every change is audited; two terms that fold alike are one term; anybody else
is refused and nothing changes."""

from __future__ import annotations

import pytest

from tests.factories.screening import ban
from tradepost.accounts.errors import AccountError, AccountErrorCode
from tradepost.audit.models import AuditEntry
from tradepost.screening import services
from tradepost.screening.errors import ScreeningError, ScreeningErrorCode
from tradepost.screening.models import BannedTerm

pytestmark = pytest.mark.django_db


def test_an_operator_adds_a_term_and_the_audit_log_records_it(cast):
    term = services.banned_term_create(
        actor=cast.operator, term="  Tiger—Bone ", language="en", note="CITES appendix I"
    )
    assert (term.term, term.normalized, term.language, term.active) == (
        "Tiger—Bone",
        "tiger bone",
        "en",
        True,
    )
    assert term.created_by == cast.operator
    (entry,) = AuditEntry.objects.filter(action="banned_term.create")
    assert entry.actor == cast.operator and entry.target_id == str(term.pk)
    assert entry.changes["normalized"] == [None, "tiger bone"]
    assert entry.changes["note"] == [None, "CITES appendix I"]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("ivory", "ＩＶＯＲＹ"),
        ("ivory", "Ivory"),
        ("象牙", " 象 牙 "),
        ("tiger bone", "Tiger-Bone"),
    ],
)
def test_terms_that_fold_alike_are_one_term(cast, first, second):
    ban(first, actor=cast.operator)
    with pytest.raises(ScreeningError) as refused:
        services.banned_term_create(actor=cast.operator, term=second)
    assert refused.value.code == ScreeningErrorCode.DUPLICATE
    assert "term" in refused.value.message_dict
    assert BannedTerm.objects.count() == 1


def test_traditional_and_simplified_spellings_are_one_term(cast):
    ban("鋼筆", actor=cast.operator)
    with pytest.raises(ScreeningError) as refused:
        services.banned_term_create(actor=cast.operator, term="钢笔")
    assert refused.value.code == ScreeningErrorCode.DUPLICATE
    assert "鋼筆" in refused.value.message


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"term": ""}, "term"),
        ({"term": "!!!"}, "term"),
        ({"term": "x"}, "term"),
        ({"term": "x" * 101}, "term"),
        ({"term": 12}, "term"),
        ({"term": "gun", "language": "klingon"}, "language"),
        ({"term": "gun", "note": "n" * 301}, "note"),
        ({"term": "gun", "active": ["yes"]}, "active"),
        ({"term": "a\ud800b"}, "term"),
    ],
)
def test_bad_input_is_refused_field_by_field(cast, fields, field):
    with pytest.raises(ScreeningError) as refused:
        services.banned_term_create(actor=cast.operator, **fields)
    assert refused.value.code == ScreeningErrorCode.INVALID
    assert field in refused.value.message_dict
    assert not BannedTerm.objects.exists() and not AuditEntry.objects.exists()


def test_a_single_chinese_character_is_a_term(cast):
    assert ban("毒", actor=cast.operator).normalized == "毒"


@pytest.mark.parametrize("who", ["owner", "admin", "member", "outsider", "loner"])
def test_only_operators_change_the_list(cast, who):
    term = ban("ivory", actor=cast.operator)
    actor = cast.user(who)
    attempts = [
        lambda: services.banned_term_create(actor=actor, term="gun"),
        lambda: services.banned_term_update(actor=actor, banned_term=term, active=False),
        lambda: services.banned_term_delete(actor=actor, banned_term=term),
        lambda: services.banned_terms_bulk_add(actor=actor, terms="gun\nknife"),
    ]
    for attempt in attempts:
        with pytest.raises(AccountError) as refused:
            attempt()
        assert refused.value.code == AccountErrorCode.OPERATORS_ONLY
    term.refresh_from_db()
    assert term.active and BannedTerm.objects.count() == 1
    assert AuditEntry.objects.filter(action__startswith="banned_term.").count() == 1


def test_update_deactivate_and_delete_are_audited(cast):
    term = ban("ivory", actor=cast.operator)
    services.banned_term_update(actor=cast.operator, banned_term=term, term="Ivory tusk")
    services.banned_term_update(actor=cast.operator, banned_term=term, active=False)
    services.banned_term_update(actor=cast.operator, banned_term=term, active=False)  # no change
    term.refresh_from_db()
    assert (term.term, term.normalized, term.active) == ("Ivory tusk", "ivory tusk", False)
    services.banned_term_delete(actor=cast.operator, banned_term=term)
    assert not BannedTerm.objects.exists()
    entries = list(AuditEntry.objects.filter(action__startswith="banned_term.").order_by("id"))
    assert [entry.action for entry in entries] == [
        "banned_term.create",
        "banned_term.update",
        "banned_term.update",
        "banned_term.delete",
    ]
    assert entries[1].changes == {
        "term": ["ivory", "Ivory tusk"],
        "normalized": ["ivory", "ivory tusk"],
    }
    assert entries[2].changes == {"active": [True, False]}
    assert entries[3].changes["term"] == ["Ivory tusk", None]


def test_an_update_to_another_terms_form_is_refused(cast):
    ban("ivory", actor=cast.operator)
    gun = ban("gun", actor=cast.operator)
    with pytest.raises(ScreeningError) as refused:
        services.banned_term_update(actor=cast.operator, banned_term=gun, term="IVORY")
    assert refused.value.code == ScreeningErrorCode.DUPLICATE
    gun.refresh_from_db()
    assert gun.term == "gun"


def test_a_paste_adds_each_new_term_and_skips_those_known(cast):
    ban("ivory", actor=cast.operator)
    result = services.banned_terms_bulk_add(
        actor=cast.operator,
        terms="gun\n\n  象牙 \nIVORY\nGun\n鋼筆\n",
        language="any",
        note="First list",
    )
    assert [term.term for term in result.added] == ["gun", "象牙", "鋼筆"]
    assert result.skipped == ["IVORY", "Gun"]
    assert set(BannedTerm.objects.values_list("normalized", flat=True)) == {
        "ivory",
        "gun",
        "象牙",
        "钢笔",
    }
    assert set(BannedTerm.objects.values_list("note", flat=True)) == {"", "First list"}
    assert AuditEntry.objects.filter(action="banned_term.create").count() == 4


def test_a_paste_with_bad_lines_adds_nothing_and_names_every_bad_line(cast):
    with pytest.raises(ScreeningError) as refused:
        services.banned_terms_bulk_add(actor=cast.operator, terms="gun\n!!!\nknife\n" + "x" * 150)
    messages = refused.value.message_dict["terms"]
    assert any(message.startswith("Line 2:") for message in messages)
    assert any(message.startswith("Line 4:") for message in messages)
    assert not BannedTerm.objects.exists()


def test_a_paste_has_a_limit(cast, monkeypatch):
    monkeypatch.setattr(services, "BULK_MAX_LINES", 3)
    with pytest.raises(ScreeningError) as refused:
        services.banned_terms_bulk_add(actor=cast.operator, terms="aa\nbb\ncc\ndd")
    assert "at most 3" in refused.value.message
    monkeypatch.setattr(services, "LIST_MAX_TERMS", 2)
    with pytest.raises(ScreeningError) as full:
        services.banned_terms_bulk_add(actor=cast.operator, terms="aa\nbb\ncc")
    assert full.value.code == ScreeningErrorCode.LIST_FULL
    assert not BannedTerm.objects.exists()
