from django.apps import AppConfig


class DemoConfig(AppConfig):
    name = "tradepost.demo"
    label = "demo"
