"""The search pages, mounted at /<lang>/search/."""

from django.urls import path

from tradepost.web.views import search

app_name = "search"

urlpatterns = [
    path("", search.search_page, name="results"),
]
