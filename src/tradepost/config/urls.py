from django.conf import settings
from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path, re_path
from django.utils.translation import gettext_lazy as _
from django.views.decorators.csrf import csrf_exempt
from django.views.generic import RedirectView
from django.views.i18n import set_language
from django.views.static import serve as serve_file

from tradepost.api.urls import api
from tradepost.web.views import site_files
from tradepost.web.views.health import healthz, metrics

# The operators' admin carries the site's name, in the operator's language.
admin.site.site_header = _("Tradepost administration")
admin.site.site_title = _("Tradepost admin")
admin.site.index_title = _("Operator tools")

# Unknown addresses and unexpected errors get pages in the site's layout and the visitor's
# language (the API's stay problem documents: `tradepost.config.middleware`).
handler404 = "tradepost.web.views.errors.page_not_found"
handler500 = "tradepost.web.views.errors.server_error"

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics, name="metrics"),
    path("robots.txt", site_files.robots_txt, name="robots_txt"),
    path("favicon.ico", site_files.favicon, name="favicon"),
    path("sitemap.xml", site_files.sitemap_index, name="sitemap"),
    path("sitemap-<slug:section>.xml", site_files.sitemap_section, name="sitemap_section"),
    path("api/v1/", api.urls),
    # A problem document's `type` (api.problems.problem_type): the API's documentation.
    path("problems/<slug:code>", RedirectView.as_view(url="/api/v1/docs"), name="problem_type"),
    # Choosing the language needs no CSRF token: a forged request could only change the
    # language a visitor reads in, and without a token in the language form the public pages
    # set no cookie for a visitor, so they can be kept in the page cache
    # (`tradepost.config.middleware.PublicPageCacheMiddleware`).
    path("i18n/setlang/", csrf_exempt(set_language), name="set_language"),
    path("admin/", admin.site.urls),
    # Uploaded images: served by the application so a one-machine install needs no other
    # server; a reverse proxy can serve MEDIA_ROOT directly in larger deployments.
    re_path(r"^media/(?P<path>.*)$", serve_file, {"document_root": settings.MEDIA_ROOT}),
]

urlpatterns += i18n_patterns(
    path("", include("tradepost.web.urls.site")),
    path("accounts/", include("tradepost.web.urls.accounts")),
    path("", include("tradepost.web.urls.membership")),
    path("dashboard/company/", include("tradepost.web.urls.companies")),
    path("dashboard/products/", include("tradepost.web.urls.products")),
    path("dashboard/imports/", include("tradepost.web.urls.imports")),
    path("dashboard/webhooks/", include("tradepost.web.urls.webhooks")),
    path("dashboard/alerts/", include("tradepost.web.urls.alerts")),
    path("dashboard/", include("tradepost.web.urls.insights")),
    path("dashboard/", include("tradepost.web.urls.trust")),
    path("dashboard/", include("tradepost.web.urls.screening")),
    path("search/", include("tradepost.web.urls.search")),
    path("requests/", include("tradepost.web.urls.sourcing")),
    path("messages/", include("tradepost.web.urls.messaging")),
    path("", include("tradepost.web.urls.reviews")),
    path("", include("tradepost.web.urls.catalog")),
    prefix_default_language=True,
)
