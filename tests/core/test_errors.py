"""The one error family (docs/adr/0017-one-error-family.md): every app's refusal is a
`core.errors.DomainError` whose code declares its kind."""

from __future__ import annotations

import importlib
import pkgutil

import pytest
from django.core.exceptions import ValidationError
from django.http import Http404
from django.utils import translation

import tradepost
from tests.error_family import APP_CODES, APP_ERRORS, NOT_FOUND
from tradepost.accounts.errors import AccountError, AccountErrorCode
from tradepost.catalog.errors import ProductError, ProductErrorCode, ProductNotFound
from tradepost.companies.errors import CompanyErrorCode, CompanyNotFound
from tradepost.core.errors import NON_FIELD, DomainError, ErrorCode, ErrorKind, NotFound
from tradepost.money.errors import MoneyError, MoneyErrorCode
from tradepost.money.services import exchange_rate_set
from tradepost.sourcing.errors import SourcingError, SourcingErrorCode
from tradepost.trust.errors import ReportNotFound, TrustErrorCode
from tradepost.webhooks.errors import WebhookNotFound


def _errors_modules():
    for info in pkgutil.iter_modules(tradepost.__path__):
        if info.ispkg and importlib.util.find_spec(f"tradepost.{info.name}.errors"):
            yield info.name, importlib.import_module(f"tradepost.{info.name}.errors")


def test_every_exception_of_an_apps_errors_module_is_in_the_family():
    found = {}
    for app, module in _errors_modules():
        classes = {
            value
            for value in vars(module).values()
            if isinstance(value, type)
            and issubclass(value, Exception)
            and value.__module__ == module.__name__
        }
        if app in ("core", "demo"):
            continue
        found[app] = classes
        for error_class in classes:
            assert issubclass(error_class, DomainError), error_class
    assert found == APP_ERRORS


@pytest.mark.parametrize("app", sorted(APP_ERRORS))
def test_every_code_declares_its_kind_once(app):
    module = importlib.import_module(f"tradepost.{app}.errors")
    enums = [
        value
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, ErrorCode) and value is not ErrorCode
    ]
    assert len(enums) == 1, enums
    (codes,) = enums
    assert len({member.value for member in codes}) == len(codes)
    for member in codes:
        assert isinstance(member.kind, ErrorKind), member
        assert codes(member.value) is member
        assert str(member) == member.value
        built = APP_CODES[app][0](member, "Refused.")
        assert built.kind is member.kind
        assert built.title


@pytest.mark.parametrize("error_class", list(NOT_FOUND), ids=lambda cls: cls.__name__)
def test_not_found_classes_are_404s_of_kind_not_found(error_class):
    assert issubclass(error_class, Http404)
    error = error_class(*NOT_FOUND[error_class])
    assert error.kind is ErrorKind.NOT_FOUND
    assert error.message


def _subclasses(root: type) -> set[type]:
    found = set()
    for sub in root.__subclasses__():
        found |= {sub, *_subclasses(sub)}
    return found


def test_every_not_found_class_is_a_two_line_404_of_its_apps_family():
    """Each app's not-found class specialises `NotFound` by its code alone: a 404 of the app's
    family raised with the app's not-found code, and no `__init__` of its own."""
    dict(_errors_modules())  # every app's errors module imported
    classes = _subclasses(NotFound)
    assert classes == set(NOT_FOUND)
    for error_class in classes:
        app = error_class.__module__.split(".")[1]
        family, codes = APP_CODES[app]
        assert issubclass(error_class, family) and issubclass(error_class, Http404)
        assert "__init__" not in vars(error_class), error_class
        assert error_class.not_found_code in codes.__members__.values()
        assert error_class.not_found_code.kind is ErrorKind.NOT_FOUND
        error = error_class()
        assert isinstance(error, family) and isinstance(error, Http404)
        assert error.code is error_class.not_found_code
        assert error.message == str(error_class.default_message)
        assert error_class("Gone.").message_dict == {NON_FIELD: ["Gone."]}


def test_a_not_found_keeps_the_default_message_or_takes_another_code():
    with translation.override("en"):
        assert ProductNotFound().message == "No such object."
        assert WebhookNotFound().message == "No such webhook endpoint."
        assert WebhookNotFound("No such delivery.").message == "No such delivery."
    target = ReportNotFound(TrustErrorCode.TARGET_NOT_FOUND)
    assert target.code is TrustErrorCode.TARGET_NOT_FOUND and target.message
    member = CompanyNotFound(CompanyErrorCode.MEMBER_NOT_FOUND, "No such member.")
    assert member.code is CompanyErrorCode.MEMBER_NOT_FOUND
    assert member.message == "No such member."
    with pytest.raises(ProductError):
        raise ProductNotFound()
    with pytest.raises(Http404):
        raise ProductNotFound()


@pytest.mark.django_db
def test_the_money_service_refuses_with_its_domain_error():
    with pytest.raises(MoneyError) as caught:
        exchange_rate_set(actor=None, currency="QQQ", rate_to_usd="-1", as_of="yesterday")
    assert not isinstance(caught.value, ValidationError)
    assert caught.value.code is MoneyErrorCode.INVALID
    assert caught.value.kind is ErrorKind.INVALID
    assert set(caught.value.field_errors) == {"currency", "rate_to_usd", "as_of"}


def test_a_message_lands_under_its_field_or_the_whole_request():
    about_field = AccountError(AccountErrorCode.INVALID, "Enter a name.", field="full_name")
    assert about_field.message_dict == {"full_name": ["Enter a name."]}
    whole = SourcingError(SourcingErrorCode.REQUEST_FULL, "Full.")
    assert whole.message_dict == {NON_FIELD: ["Full."]}
    assert whole.field_errors == {}
    many = ProductError(ProductErrorCode.INVALID, {"title": "Too long.", "moq": ["A", "B"]})
    assert many.message_dict == {"title": ["Too long."], "moq": ["A", "B"]}
    assert many.message == str(many) == "Too long. A B"


def test_titles_follow_the_language_at_use_and_messages_the_one_at_raise():
    with translation.override("zh-hans"):
        error = SourcingError(SourcingErrorCode.REQUEST_FULL, translation.gettext("Not found"))
    with translation.override("en"):
        assert error.title == "The request is full"
        assert error.message != "Not found"
    with translation.override("zh-hans"):
        assert error.title != "The request is full"
    assert SourcingError(SourcingErrorCode.WRONG_STATE, "x").title == "Not possible in this state"


def test_a_django_validation_error_becomes_the_apps_invalid_error():
    error = ProductError.from_validation_error(
        ProductErrorCode.INVALID,
        ValidationError({"category": ["Choose a category."]}),
        rename={"category": "category_id"},
    )
    assert error.kind is ErrorKind.INVALID
    assert error.message_dict == {"category_id": ["Choose a category."]}
    plain = ProductError.from_validation_error(ProductErrorCode.INVALID, ValidationError("Bad."))
    assert plain.message_dict == {NON_FIELD: ["Bad."]}
