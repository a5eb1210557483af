"""Forms of the account pages. They parse input; the services decide and write
(docs/adr/0020-one-input-layer.md). Django's own checks are kept where a form authenticates
rather than writes (the login, the password fields, the reset request), on the new address of
an address change (its service checks the password first) and on the preferred language (the
service reads an unknown one as English rather than refusing it)."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext_lazy as _

from tradepost.accounts import services
from tradepost.accounts.backends import login_pause
from tradepost.accounts.tokens import TOKEN_NAME_MAX_LENGTH
from tradepost.core.form_fields import ChoiceText, Text
from tradepost.core.languages import normalise_ui_language
from tradepost.money.display import display_currency_options


class EmailAuthenticationForm(AuthenticationForm):
    """Log in with email and password; the address is matched without regard to case."""

    username = forms.EmailField(
        label=_("Email"),
        max_length=254,
        widget=forms.EmailInput(attrs={"autofocus": True, "autocomplete": "email"}),
    )

    error_messages = {
        "invalid_login": _("The email address or the password is not correct."),
        "inactive": _("This account is inactive."),
    }

    def clean_username(self) -> str:
        return services.normalise_email(self.cleaned_data["username"])

    def get_invalid_login_error(self) -> forms.ValidationError:
        pause = login_pause(self.request)
        if pause is None:
            return super().get_invalid_login_error()
        if pause.paused:
            minutes = max(1, -(-pause.retry_after // 60))
            message = ngettext(
                "Signing in to this account from a new device is paused for %(minutes)d "
                "minute after too many attempts. A device you signed in on before still "
                "gets in; you can also reset your password.",
                "Signing in to this account from a new device is paused for %(minutes)d "
                "minutes after too many attempts. A device you signed in on before still "
                "gets in; you can also reset your password.",
                minutes,
            ) % {"minutes": minutes}
        else:
            message = ngettext(
                "Too many attempts to sign in to this account from new devices. Try again in "
                "%(seconds)d second.",
                "Too many attempts to sign in to this account from new devices. Try again in "
                "%(seconds)d seconds.",
                pause.retry_after,
            ) % {"seconds": pause.retry_after}
        return forms.ValidationError(message, code="login_paused")


def _language_choices() -> list[tuple[str, str]]:
    return [(code, str(name)) for code, name in settings.LANGUAGES]


class SignupForm(forms.Form):
    # `services.user_signup` checks the address (format and length) itself.
    email = Text(
        label=_("Email"),
        limit=services.EMAIL_MAX_LENGTH,
        widget=forms.EmailInput(attrs={"autocomplete": "email", "autofocus": True}),
    )
    full_name = Text(
        label=_("Full name"),
        limit=services.FULL_NAME_MAX_LENGTH,
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
    )
    password = forms.CharField(
        label=_("Password"),
        strip=False,
        max_length=128,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=_("At least 8 characters; not a common password and not only digits."),
    )
    preferred_language = forms.ChoiceField(label=_("Preferred language"), choices=())

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields["preferred_language"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = _language_choices()
        field.initial = normalise_ui_language(get_language())


class SettingsForm(forms.Form):
    full_name = Text(label=_("Full name"), limit=services.FULL_NAME_MAX_LENGTH, required=False)
    preferred_language = forms.ChoiceField(
        label=_("Preferred language"),
        choices=(),
        help_text=_("Emails from Tradepost are written in this language."),
    )

    # `services.user_display_currency_set` refuses a currency it cannot show prices in.
    display_currency = ChoiceText(
        label=_("Show prices in"),
        required=False,
        help_text=_(
            "Prices in another currency are shown converted into this one, approximately, "
            "beside the supplier's own price."
        ),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields["preferred_language"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = _language_choices()
        currency = self.fields["display_currency"]
        assert isinstance(currency, ChoiceText)
        currency.choices = [
            ("", _("The usual currency of the page's language")),
            *display_currency_options(names_in=normalise_ui_language(get_language())),
        ]


class EmailChangeForm(forms.Form):
    new_email = forms.EmailField(
        label=_("New email address"),
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password = forms.CharField(
        label=_("Current password"),
        strip=False,
        max_length=128,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


class TokenCreateForm(forms.Form):
    name = Text(
        label=_("Token name"),
        limit=TOKEN_NAME_MAX_LENGTH,
        help_text=_("What the token is for, e.g. “ERP sync”."),
    )


class QueuedPasswordResetForm(PasswordResetForm):
    """Django's reset form, sending through the email queue in each user's own language."""

    def save(self, *args, **kwargs) -> None:  # type: ignore[override]
        services.password_reset_request(email=self.cleaned_data["email"])
