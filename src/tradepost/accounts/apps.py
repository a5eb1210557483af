from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "tradepost.accounts"
    label = "accounts"
