from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "tradepost.ops"
    label = "ops"
