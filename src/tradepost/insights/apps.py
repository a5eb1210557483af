from django.apps import AppConfig


class InsightsConfig(AppConfig):
    name = "tradepost.insights"
    label = "insights"
