from django.apps import AppConfig


class SearchConfig(AppConfig):
    name = "tradepost.search"
    label = "search"
