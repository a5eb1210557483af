from django.urls import path

from tradepost.web.views import showcase, site

app_name = "web"

urlpatterns = [
    path("", site.home, name="home"),
    path("display-currency/", site.display_currency_set, name="display_currency_set"),
    path("sponsored/", showcase.sponsored_info, name="sponsored"),
]
