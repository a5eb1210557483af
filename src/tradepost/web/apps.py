from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "tradepost.web"
    label = "web"
