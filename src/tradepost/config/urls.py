from django.conf import settings
from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.contrib.sitemaps.views import sitemap
from django.urls import include, path, re_path
from django.views.decorators.csrf import csrf_exempt
from django.views.i18n import set_language
from django.views.static import serve as serve_file

from tradepost.api.urls import api
from tradepost.web.sitemaps import SITEMAPS
from tradepost.web.views.health import healthz, metrics

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics, name="metrics"),
    path("sitemap.xml", sitemap, {"sitemaps": SITEMAPS}, name="sitemap"),
    path("api/v1/", api.urls),
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
    path("dashboard/company/", include("tradepost.web.urls.companies")),
    path("dashboard/products/", include("tradepost.web.urls.products")),
    path("search/", include("tradepost.web.urls.search")),
    path("requests/", include("tradepost.web.urls.sourcing")),
    path("messages/", include("tradepost.web.urls.messaging")),
    path("", include("tradepost.web.urls.catalog")),
    prefix_default_language=True,
)
