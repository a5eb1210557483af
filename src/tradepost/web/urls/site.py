from django.urls import path

from tradepost.web.views import site

app_name = "web"

urlpatterns = [
    path("", site.home, name="home"),
    path("display-currency/", site.display_currency_set, name="display_currency_set"),
]
