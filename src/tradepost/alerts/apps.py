from django.apps import AppConfig


class AlertsConfig(AppConfig):
    name = "tradepost.alerts"
    label = "alerts"
