"""The account, company, screening, trust and messaging forms only parse
(docs/adr/0020-one-input-layer.md): a length is the widget's `maxlength`, drawn for the browser,
and the service refuses a longer value with its own message, shown on the form's field."""

from __future__ import annotations

import inspect

import pytest
from django import forms
from django.core.validators import MaxLengthValidator
from django.test import Client

from tests.factories.accounts import make_user
from tests.factories.companies import make_trader
from tests.pages import log_in, page_url
from tradepost.accounts import forms as account_forms
from tradepost.accounts import services as account_services
from tradepost.accounts.models import ApiToken, User
from tradepost.accounts.tokens import TOKEN_NAME_MAX_LENGTH
from tradepost.companies import forms as company_forms
from tradepost.companies.models import Invitation
from tradepost.core.form_fields import ChoiceList, ChoiceText, Text
from tradepost.messaging import forms as messaging_forms
from tradepost.money.display import UNKNOWN_CHOICE
from tradepost.screening import forms as screening_forms
from tradepost.trust import forms as trust_forms

pytestmark = pytest.mark.django_db

#: Fields left to Django's checks: the login, the password reset request and the change of
#: address (authentication; the change of address checks the password first).
LEFT_AS_THEY_ARE = {
    ("EmailAuthenticationForm", "username"),
    ("QueuedPasswordResetForm", "email"),
    ("EmailChangeForm", "new_email"),
}


def _forms() -> list[type[forms.BaseForm]]:
    found = []
    for module in (account_forms, company_forms, screening_forms, trust_forms, messaging_forms):
        for _name, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, forms.BaseForm) and value.__module__ == module.__name__:
                found.append(value)
    return found


def _text_fields() -> list[tuple[str, str, forms.Field]]:
    return [
        (form.__name__, name, field)
        for form in _forms()
        for name, field in form.base_fields.items()
        if isinstance(field, forms.CharField)
        and not isinstance(field.widget, forms.PasswordInput)
        and (form.__name__, name) not in LEFT_AS_THEY_ARE
    ]


@pytest.mark.parametrize(
    ("form", "name", "field"),
    _text_fields(),
    ids=[f"{form}.{name}" for form, name, _field in _text_fields()],
)
def test_no_text_field_checks_a_length(form, name, field):
    assert field.max_length is None
    assert not any(isinstance(check, MaxLengthValidator) for check in field.validators)


def test_the_limit_is_drawn_for_the_browser():
    form = company_forms.CompanyProfileForm()
    assert isinstance(form.fields["legal_name"], Text)
    assert 'maxlength="200"' in str(form["legal_name"])
    assert 'maxlength="100"' in str(form["city"])
    assert 'maxlength="254"' in str(account_forms.SignupForm()["email"])
    assert 'type="email"' in str(account_forms.SignupForm()["email"])
    assert f'maxlength="{TOKEN_NAME_MAX_LENGTH}"' in str(account_forms.TokenCreateForm()["name"])
    assert "maxlength" not in str(form["description"])
    # Needed, for the browser; a blank one is the service's refusal, beside the others'.
    for name in ("legal_name", "country", "original_language"):
        assert " required" in str(form[name]) and not form.fields[name].required


def test_text_takes_a_limit_not_a_max_length():
    with pytest.raises(TypeError):
        Text(max_length=10)


def test_the_company_lists_are_the_widgets_own():
    fields = company_forms.CompanyProfileForm.base_fields
    for name in ("country", "original_language", "employee_range"):
        assert isinstance(fields[name], ChoiceText)
    for name in ("business_types", "main_markets"):
        assert isinstance(fields[name], ChoiceList)
    form = company_forms.CompanyProfileForm()
    assert 'value="CN"' in str(form["country"])
    assert 'value="manufacturer"' in str(form["business_types"])


def _errors(response) -> dict[str, list[str]]:
    form = response.context["form"]
    return {name: [str(m) for m in messages] for name, messages in form.errors.items()}


def test_a_long_email_at_sign_up_gets_the_services_refusal():
    address = "a" * 250 + "@example.com"
    response = Client().post(
        page_url("accounts:signup"),
        {
            "email": address,
            "full_name": "Li Ming",
            "password": "a-long-unusual-passphrase-7",
            "preferred_language": "en",
        },
    )
    assert response.status_code == 200
    assert _errors(response)["email"] == ["An email address has at most 254 characters."]
    assert not User.objects.exists()


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_settings_refuse_the_name_and_the_currency_together(language):
    user = make_user(full_name="Li Ming", preferred_language="en")
    page = log_in(Client(), user).post(
        page_url("accounts:settings", language),
        {"full_name": "x" * 500, "preferred_language": "zh-hans", "display_currency": "XXX"},
    )
    errors = _errors(page)
    with pytest.raises(account_services.AccountError) as refused:
        account_services.user_settings_update(
            user=user, full_name="x" * 500, preferred_language="zh-hans", display_currency="XXX"
        )
    assert set(refused.value.message_dict) == {"full_name", "display_currency"}
    assert errors["full_name"] and errors["display_currency"]
    if language == "en":
        assert errors["full_name"] == ["A name has at most 120 characters."]
        assert errors["display_currency"] == [str(UNKNOWN_CHOICE)]
    user.refresh_from_db()
    assert (user.full_name, user.preferred_language, user.display_currency) == ("Li Ming", "en", "")


def test_a_long_token_name_gets_the_services_refusal():
    user = make_user()
    page = log_in(Client(), user).post(page_url("accounts:tokens"), {"name": "x" * 200})
    assert _errors(page)["name"] == [
        f"A token name has at most {TOKEN_NAME_MAX_LENGTH} characters."
    ]
    assert not ApiToken.objects.filter(user=user).exists()


def test_a_long_invitation_address_gets_the_services_refusal():
    user, _company = make_trader()
    page = log_in(Client(), user).post(
        page_url("companies:invite"), {"email": "a" * 300 + "@example.com", "role": "member"}
    )
    assert page.status_code == 400
    assert _errors(page)["email"] == ["Enter a valid email address."]
    assert not Invitation.objects.exists()
