from django.apps import AppConfig


class SourcingConfig(AppConfig):
    name = "tradepost.sourcing"
    label = "sourcing"
