"""What crawlers and browsers ask for at the site's root: /robots.txt, /favicon.ico and the
sitemap (/sitemap.xml, an index of /sitemap-<section>.xml?p=N pages)."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

from tradepost.web import sitemaps

FAVICON = Path(__file__).resolve().parent.parent / "static" / "tradepost" / "favicon.ico"

#: Sections of the site, under each language prefix, that are one person's pages (their
#: account, dashboards, conversations): nothing there for a search engine.
PRIVATE_SECTIONS = ("accounts/", "dashboard/", "messages/")
#: Private pages among the public buying requests.
PRIVATE_PAGES = (
    "sourcing:create",
    "sourcing:my_requests",
    "sourcing:my_quotations",
    "sourcing:matching",
)


def _private_paths() -> list[str]:
    paths: list[str] = []
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            home = reverse("web:home")
            paths.extend(home + section for section in PRIVATE_SECTIONS)
            paths.extend(reverse(name) for name in PRIVATE_PAGES)
    return paths


@require_safe
@cache_control(max_age=3600, public=True)
def robots_txt(request: HttpRequest) -> HttpResponse:
    context = {
        "disallowed": ["/admin/", "/api/", "/i18n/", *_private_paths()],
        "sitemap_url": f"{settings.SITE_URL.rstrip('/')}{reverse('sitemap')}",
    }
    # No request in the context: nothing of the visitor (session, user) is read.
    body = render_to_string("web/robots.txt", context)
    return HttpResponse(body, content_type="text/plain; charset=utf-8")


@require_safe
@cache_control(max_age=86400, public=True)
def favicon(request: HttpRequest) -> FileResponse:
    return FileResponse(FAVICON.open("rb"), content_type="image/x-icon")


def _xml(body: str) -> HttpResponse:
    response = HttpResponse(body, content_type="application/xml; charset=utf-8")
    response["X-Robots-Tag"] = "noindex"
    return response


@require_safe
def sitemap_index(request: HttpRequest) -> HttpResponse:
    return _xml(sitemaps.index_xml())


@require_safe
def sitemap_section(request: HttpRequest, section: str) -> HttpResponse:
    raw = request.GET.get("p", "1")
    page = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 9 else 0
    body = sitemaps.page_xml(section, page)
    if body is None:
        raise Http404("no such sitemap page")
    return _xml(body)
