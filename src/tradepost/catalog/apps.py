from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "tradepost.catalog"
    label = "catalog"
