"""Company management pages under /<lang>/dashboard/company/.

Each page works on the signed-in user's own company. Operators may add `?company=<id>` to
work on any company; for everybody else an id that is not theirs answers 404.
"""

from __future__ import annotations

from collections.abc import Callable

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from tradepost.accounts.selectors import is_operator
from tradepost.companies import selectors, services
from tradepost.companies.errors import CompanyError, CompanyPermissionDenied
from tradepost.companies.forms import (
    CompanyCreateForm,
    CompanyProfileForm,
    InviteForm,
    LogoForm,
    RoleForm,
)
from tradepost.companies.models import Company, Role
from tradepost.web.guards import NAMED_BY_MEMBERS, actor, company_required, denied
from tradepost.web.refusals import flash_refusal, show_on_form
from tradepost.web.views.accounts import AuthenticatedRequest


def _form_errors(form: forms.Form, field: str) -> str:
    return " ".join(str(message) for message in form.errors.get(field, []))


def _query(request: AuthenticatedRequest) -> str:
    company_id = request.GET.get("company")
    return "?" + urlencode({"company": company_id}) if company_id else ""


def _redirect(request: AuthenticatedRequest, name: str) -> HttpResponseRedirect:
    return HttpResponseRedirect(reverse(name) + _query(request))


#: The refusal of the pages that edit the company to members who are not its owner or admins.
EDIT_REFUSED = gettext_lazy("Only the owner and the admins can edit the company profile.")


@company_required()
def index(request: AuthenticatedRequest, company: Company) -> HttpResponse:
    return redirect("companies:profile")


@login_required
def create(request: AuthenticatedRequest) -> HttpResponse:
    if actor(request).membership is not None:
        messages.info(request, _("You already belong to a company."))
        return redirect("companies:profile")
    form = CompanyCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.company_create(actor=request.user, **form.cleaned_data)
        except CompanyError as exc:
            show_on_form(form, exc)
        else:
            messages.success(
                request, _("Your company is created. Complete its profile so buyers trust it.")
            )
            return redirect("companies:profile")
    return render(request, "companies/manage/create.html", {"form": form})


@company_required(named=NAMED_BY_MEMBERS, manage=EDIT_REFUSED)
def profile(request: AuthenticatedRequest, company: Company) -> HttpResponse:
    form = CompanyProfileForm(request.POST or None, initial=CompanyProfileForm.initial_for(company))
    if request.method == "POST" and form.is_valid():
        try:
            services.company_update(actor=request.user, company=company, **form.cleaned_data)
        except CompanyError as exc:
            show_on_form(form, exc)
        else:
            messages.success(request, _("The company profile is saved."))
            return _redirect(request, "companies:profile")
    return render(
        request,
        "companies/manage/profile.html",
        {"company": company, "form": form, "logo_form": LogoForm(), "query": _query(request)},
        status=400 if form.is_bound and form.errors else 200,
    )


@company_required(named=NAMED_BY_MEMBERS, manage=EDIT_REFUSED)
@require_POST
def logo(request: AuthenticatedRequest, company: Company) -> HttpResponse:
    try:
        if request.POST.get("remove"):
            services.company_logo_remove(actor=request.user, company=company)
            messages.success(request, _("The logo is removed."))
        else:
            form = LogoForm(request.POST, request.FILES)
            if not form.is_valid():
                # None chosen, or the form's own reason (an empty file).
                refused = "" if form.has_error("logo", "required") else _form_errors(form, "logo")
                messages.error(request, refused or _("Choose an image file to upload."))
                return _redirect(request, "companies:profile")
            services.company_logo_set(
                actor=request.user, company=company, upload=form.cleaned_data["logo"]
            )
            messages.success(request, _("The logo is saved."))
    except CompanyPermissionDenied as exc:
        return denied(request, exc.message)
    except CompanyError as exc:
        flash_refusal(request, exc)
    return _redirect(request, "companies:profile")


@company_required(named=NAMED_BY_MEMBERS)
def members(request: AuthenticatedRequest, company: Company) -> HttpResponse:
    acting = actor(request)
    can_manage = acting.manages(company)
    my_role = acting.role_in(company)
    return render(
        request,
        "companies/manage/members.html",
        {
            "company": company,
            "members": list(selectors.members_of(company)),
            "invitations": list(selectors.pending_invitations(company)) if can_manage else [],
            "can_manage": can_manage,
            "can_change_roles": my_role == Role.OWNER or is_operator(request.user),
            "my_role": my_role,
            "invite_form": InviteForm(),
            "role_choices": RoleForm.base_fields["role"].choices,  # type: ignore[attr-defined]
            "query": _query(request),
        },
    )


@company_required(
    named=NAMED_BY_MEMBERS, manage=gettext_lazy("Only the owner and the admins can invite people.")
)
def invite(request: AuthenticatedRequest, company: Company) -> HttpResponse:
    form = InviteForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            invitation, _secret = services.invitation_create(
                actor=request.user,
                company=company,
                email=form.cleaned_data["email"],
                role=form.cleaned_data["role"],
            )
        except CompanyError as exc:
            show_on_form(form, exc)
        else:
            messages.success(
                request, _("We sent an invitation to %(email)s.") % {"email": invitation.email}
            )
            return _redirect(request, "companies:members")
    return render(
        request,
        "companies/manage/invite.html",
        {"company": company, "form": form, "query": _query(request)},
        status=400 if form.is_bound and form.errors else 200,
    )


def _member_action(
    request: AuthenticatedRequest, company: Company, action: Callable[[Company], str]
) -> HttpResponse:
    try:
        message = action(company)
    except CompanyPermissionDenied as exc:
        return denied(request, exc.message)
    except CompanyError as exc:
        flash_refusal(request, exc)
    else:
        messages.success(request, message)
    return _redirect(request, "companies:members")


@company_required(named=NAMED_BY_MEMBERS)
@require_POST
def invitation_revoke(
    request: AuthenticatedRequest, company: Company, invitation_id: int
) -> HttpResponse:
    def action(company: Company) -> str:
        services.invitation_revoke(actor=request.user, company=company, invitation_id=invitation_id)
        return _("The invitation is withdrawn.")

    return _member_action(request, company, action)


@company_required(named=NAMED_BY_MEMBERS)
@require_POST
def member_remove(
    request: AuthenticatedRequest, company: Company, membership_id: int
) -> HttpResponse:
    def action(company: Company) -> str:
        services.member_remove(actor=request.user, company=company, membership_id=membership_id)
        return _("The member is removed from the company.")

    return _member_action(request, company, action)


@company_required(named=NAMED_BY_MEMBERS)
@require_POST
def member_role(
    request: AuthenticatedRequest, company: Company, membership_id: int
) -> HttpResponse:
    def action(company: Company) -> str:
        services.member_role_change(
            actor=request.user,
            company=company,
            membership_id=membership_id,
            role=request.POST.get("role", ""),
        )
        return _("The role is changed.")

    return _member_action(request, company, action)


@company_required(named=NAMED_BY_MEMBERS)
@require_POST
def member_make_owner(
    request: AuthenticatedRequest, company: Company, membership_id: int
) -> HttpResponse:
    def action(company: Company) -> str:
        services.ownership_transfer(
            actor=request.user, company=company, membership_id=membership_id
        )
        return _("Ownership is handed over. You are an admin now.")

    return _member_action(request, company, action)


@login_required
@require_POST
def leave(request: AuthenticatedRequest) -> HttpResponse:
    try:
        services.membership_leave(user=request.user)
    except CompanyError as exc:
        flash_refusal(request, exc)
        return redirect("companies:members")
    messages.success(request, _("You left the company."))
    return redirect("accounts:dashboard")


def invitation_accept(request: HttpRequest, token: str) -> HttpResponse:
    """GET shows the invitation; a signed-in user whose email matches accepts it with POST."""
    invitation = selectors.invitation_by_token(token)
    problem = selectors.invitation_problem(invitation)
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect(f"{reverse('accounts:login')}?{urlencode({'next': request.path})}")
        try:
            services.invitation_accept(user=request.user, token=token)
        except CompanyError as exc:
            return render(
                request,
                "companies/manage/invitation.html",
                {"invitation": invitation, "error": exc.message, "token": token},
                status=400,
            )
        messages.success(request, _("Welcome! You are now a member of the company."))
        return redirect("companies:members")
    error = None
    if problem is not None:
        error = services.invitation_error(problem).message
    return render(
        request,
        "companies/manage/invitation.html",
        {
            "invitation": invitation if problem is None else None,
            "error": error,
            "token": token,
            "email_matches": (
                invitation is not None
                and request.user.is_authenticated
                and invitation.email.lower() == request.user.email.lower()
            ),
        },
        status=200 if problem is None else 404,
    )
