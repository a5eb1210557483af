"""Who may open a page, decided once: the request's actor (`actor`) and the pages' guards
(`operator_only`, `company_required`) on top of the one answer to "who is acting, and may they?"
(`companies.actors.actor_for`; operators: `accounts.selectors.is_operator`)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from tradepost.accounts.selectors import is_operator
from tradepost.companies import selectors as company_selectors
from tradepost.companies.actors import Actor, actor_of_request
from tradepost.companies.models import Company


def operator_only(request: Any) -> None:
    """An operators' page is not found (404) for anybody else: it does not say it exists."""
    if not is_operator(request.user):
        raise Http404


def actor(request: HttpRequest) -> Actor:
    """The request's actor, resolved once per request."""
    return actor_of_request(request, request.user)


def denied(request: HttpRequest, message: Any) -> HttpResponse:
    """The page that refuses a member what only the owner and the admins may do (403)."""
    return render(request, "companies/manage/denied.html", {"message": message}, status=403)


def _page_company(request: HttpRequest, acting: Actor, *, named: str | None, manage: bool) -> Any:
    """The company a page works on: `?company=<id>` when the page lets this actor name one
    (checked by the companies' `access_*` helpers, so another company's id is not found),
    else the actor's own."""
    may_name = named == NAMED_BY_MEMBERS or (named == NAMED_BY_OPERATORS and acting.is_operator)
    if may_name and "company" in request.GET:
        access = (
            company_selectors.access_company_for_edit
            if manage
            else company_selectors.access_company_for_view
        )
        return access(user=request.user, company_id=request.GET["company"])
    return acting.company


#: `company_required(named=...)`: members (and operators) may name any company they belong to;
#: only operators may name one (anyone else works on their own).
NAMED_BY_MEMBERS = "members"
NAMED_BY_OPERATORS = "operators"


def company_required(
    message: Any = None,
    *,
    manage: Any = None,
    named: str | None = None,
    operators_to: str | None = None,
    operators_manage: bool = True,
) -> Callable[[Callable[..., HttpResponseBase]], Callable[..., HttpResponseBase]]:
    """Pages of someone acting for a company; the view receives it as `company=`.

    Anonymous visitors are sent to the login. Someone without a company is sent to create one,
    with `message` (why the page needs one) shown there; operators without one go to
    `operators_to` instead when it is given, and are told to name a company on pages that let
    them (`named`: who may name one with `?company=<id>`, `NAMED_BY_MEMBERS` or
    `NAMED_BY_OPERATORS`). With `manage` (the refusal, in the user's language),
    only the company's owner and admins, and operators, pass; other members get it (403).
    `operators_manage=False`: operators pass only by their own role, like anyone else.
    """

    def decorate(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
        @wraps(view)
        def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            acting = actor(request)
            company: Company | None = _page_company(
                request, acting, named=named, manage=manage is not None
            )
            if company is None:
                if acting.is_operator and operators_to:
                    return redirect(operators_to)
                if acting.is_operator and named:
                    raise Http404(_("Choose a company with ?company=<id>."))
                if message:
                    messages.info(request, message)
                return redirect("companies:create")
            if manage is not None and not (
                acting.manages(company)
                if operators_manage
                else acting.managed_company is not None and acting.managed_company == company
            ):
                return denied(request, manage)
            return view(request, *args, company=company, **kwargs)

        return login_required(guarded)

    return decorate
