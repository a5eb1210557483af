from django.apps import AppConfig


class MessagingConfig(AppConfig):
    name = "tradepost.messaging"
    label = "messaging"
