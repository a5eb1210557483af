from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "tradepost.core"
    label = "core"
