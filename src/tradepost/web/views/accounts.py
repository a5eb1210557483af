"""Account pages: sign-up, log-in, email verification and change, settings, password, tokens."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from tradepost.accounts import services, tokens
from tradepost.accounts.backends import login_pause
from tradepost.accounts.devices import DEVICE_COOKIE, DEVICE_MAX_AGE, device_cookie
from tradepost.accounts.errors import AccountError
from tradepost.accounts.forms import (
    EmailAuthenticationForm,
    EmailChangeForm,
    QueuedPasswordResetForm,
    SettingsForm,
    SignupForm,
    TokenCreateForm,
)
from tradepost.accounts.models import User
from tradepost.accounts.selectors import user_can_publish
from tradepost.core.clients import client_address
from tradepost.core.errors import ErrorKind
from tradepost.sourcing.selectors import supplier_key_numbers
from tradepost.web.addresses import on_this_site
from tradepost.web.display_currency import forget_display_currency, remember_display_currency
from tradepost.web.guards import actor
from tradepost.web.refusals import flash_refusal, show_on_form

MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


class AuthenticatedRequest(HttpRequest):
    """The request of a view behind login_required: `user` is a signed-in User."""

    user: User


def _remember_device(request: HttpRequest, response: HttpResponse, email: str) -> None:
    """Leave the device cookie that lets this browser sign in to `email` while the account is
    paused on new devices (`accounts.devices`)."""
    response.set_cookie(
        DEVICE_COOKIE,
        device_cookie(request.COOKIES.get(DEVICE_COOKIE), email),
        max_age=int(DEVICE_MAX_AGE.total_seconds()),
        secure=request.is_secure() or settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )


class LoginView(auth_views.LoginView):
    form_class = EmailAuthenticationForm
    template_name = "accounts/login.html"
    redirect_authenticated_user = True

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        response = super().form_valid(form)
        _remember_device(self.request, response, form.get_user().email)
        return response

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        response = super().form_invalid(form)
        pause = login_pause(self.request)
        if pause is not None:
            response.status_code = 429
            response["Retry-After"] = str(pause.retry_after)
        return response


class LogoutView(auth_views.LogoutView):
    pass


def _safe_next(request: HttpRequest) -> str:
    """The `next` address of the request when it stays on this site, else ""."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    return target if on_this_site(request, target) else ""


def signup(request: HttpRequest) -> HttpResponse:
    next_url = _safe_next(request)
    if request.user.is_authenticated:
        return redirect(next_url or "accounts:dashboard")
    form = SignupForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            user = services.user_signup(
                email=form.cleaned_data["email"],
                password=form.cleaned_data["password"],
                full_name=form.cleaned_data["full_name"],
                preferred_language=form.cleaned_data["preferred_language"],
                client=client_address(request),
            )
        except AccountError as exc:
            show_on_form(form, exc)
            if exc.kind is ErrorKind.RATE_LIMITED:
                status = 429
        else:
            login(request, user, backend=MODEL_BACKEND)
            messages.success(
                request,
                _("Welcome to Tradepost! We sent a link to %(email)s to confirm your address.")
                % {"email": user.email},
            )
            return redirect(next_url or "accounts:dashboard")
    return render(request, "accounts/signup.html", {"form": form, "next": next_url}, status=status)


@login_required
def dashboard(request: AuthenticatedRequest) -> HttpResponse:
    membership = actor(request).membership
    company = membership.company if membership else None
    return render(
        request,
        "accounts/dashboard.html",
        {
            "membership": membership,
            "company": company,
            "can_publish": user_can_publish(request.user),
            "numbers": (
                supplier_key_numbers(user=request.user, company=company) if company else None
            ),
        },
    )


@login_required
def account_settings(request: AuthenticatedRequest) -> HttpResponse:
    user = request.user
    form = SettingsForm(
        request.POST or None,
        initial={
            "full_name": user.full_name,
            "preferred_language": user.preferred_language,
            "display_currency": user.display_currency,
        },
    )
    if request.method == "POST" and form.is_valid():
        try:
            services.user_settings_update(
                user=user,
                full_name=form.cleaned_data["full_name"],
                preferred_language=form.cleaned_data["preferred_language"],
                display_currency=form.cleaned_data["display_currency"],
            )
        except AccountError as exc:
            show_on_form(form, exc)
        else:
            messages.success(request, _("Your settings are saved."))
            response = redirect("accounts:settings")
            # The browser keeps the same choice, for the pages read after logging out.
            if user.display_currency:
                remember_display_currency(response, user.display_currency)
            else:
                forget_display_currency(response)
            return response
    return render(request, "accounts/settings.html", {"form": form})


@login_required
def change_email(request: AuthenticatedRequest) -> HttpResponse:
    form = EmailChangeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.email_change_request(
                user=request.user,
                new_email=form.cleaned_data["new_email"],
                password=form.cleaned_data["password"],
            )
        except AccountError as exc:
            show_on_form(form, exc)
        else:
            messages.success(
                request,
                _(
                    "We sent a confirmation link to %(email)s. Your address changes when you "
                    "open it."
                )
                % {"email": services.normalise_email(form.cleaned_data["new_email"])},
            )
            return redirect("accounts:settings")
    return render(request, "accounts/change_email.html", {"form": form})


def change_email_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """GET shows what will happen; POST applies the change (mail scanners only GET)."""
    if request.method == "POST":
        try:
            user = services.email_change_confirm(token=token)
        except AccountError as exc:
            return render(request, "accounts/link_problem.html", {"error": exc.message}, status=400)
        messages.success(request, _("Your email address is now %(email)s.") % {"email": user.email})
        return redirect("accounts:settings" if request.user.is_authenticated else "accounts:login")
    return render(request, "accounts/change_email_confirm.html", {"token": token})


def verify_email(request: HttpRequest, token: str) -> HttpResponse:
    """GET shows a confirm button; POST marks the address verified."""
    if request.method == "POST":
        try:
            services.email_verify(token=token)
        except AccountError as exc:
            return render(request, "accounts/link_problem.html", {"error": exc.message}, status=400)
        messages.success(request, _("Thank you, your email address is verified."))
        return redirect("accounts:dashboard" if request.user.is_authenticated else "accounts:login")
    return render(request, "accounts/verify_email.html", {"token": token})


@login_required
@require_POST
def resend_verification(request: AuthenticatedRequest) -> HttpResponse:
    try:
        services.email_verification_send(user=request.user)
    except AccountError as exc:
        flash_refusal(request, exc)
    else:
        messages.success(
            request,
            _("We sent a new link to %(email)s.") % {"email": request.user.email},
        )
    return redirect("accounts:dashboard")


class PasswordChangeView(auth_views.PasswordChangeView):
    template_name = "accounts/password_change.html"
    success_url = reverse_lazy("accounts:settings")

    def form_valid(self, form):
        response = super().form_valid(form)
        messages.success(self.request, _("Your password is changed."))
        return response


class PasswordResetView(auth_views.PasswordResetView):
    form_class = QueuedPasswordResetForm
    template_name = "accounts/password_reset.html"
    success_url = reverse_lazy("accounts:password_reset_done")

    def form_valid(self, form):
        # The same answer whatever happened: an email sent, no such account, or over the
        # limits (accounts.services.password_reset_request).
        services.password_reset_request(
            email=form.cleaned_data["email"], client=client_address(self.request)
        )
        return redirect(self.get_success_url())


class PasswordResetDoneView(auth_views.PasswordResetDoneView):
    template_name = "accounts/password_reset_done.html"


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("accounts:password_reset_complete")
    title = gettext_lazy("Choose a new password")

    def form_valid(self, form: Any) -> HttpResponse:
        # The reset link proved the address: this browser signs in even while the account
        # is paused on new devices.
        response = super().form_valid(form)
        _remember_device(self.request, response, form.user.email)
        return response


class PasswordResetCompleteView(auth_views.PasswordResetCompleteView):
    template_name = "accounts/password_reset_complete.html"


@login_required
def api_tokens(request: AuthenticatedRequest) -> HttpResponse:
    """List the user's tokens; a POST creates one and shows its secret on this response only."""
    form = TokenCreateForm(request.POST or None)
    new_secret = None
    new_token = None
    if request.method == "POST" and form.is_valid():
        try:
            new_token, new_secret = tokens.token_create(
                user=request.user, name=form.cleaned_data["name"]
            )
        except AccountError as exc:
            show_on_form(form, exc)
        else:
            form = TokenCreateForm()
    response = render(
        request,
        "accounts/tokens.html",
        {
            "form": form,
            "tokens": tokens.tokens_for(request.user),
            "new_secret": new_secret,
            "new_token": new_token,
        },
    )
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def api_token_revoke(request: AuthenticatedRequest, token_id: int) -> HttpResponse:
    if tokens.token_revoke(user=request.user, token_id=token_id):
        messages.success(request, _("The token is revoked. Programs using it are refused now."))
    else:
        messages.error(request, _("There is no such active token."))
    return redirect("accounts:tokens")
