from django.apps import AppConfig


class TranslationConfig(AppConfig):
    name = "tradepost.translation"
    label = "translation"
    verbose_name = "Translation"
