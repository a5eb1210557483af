from django.apps import AppConfig


class NotifyConfig(AppConfig):
    name = "tradepost.notify"
    label = "notify"
