from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "tradepost.api"
    label = "api"
