from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MoneyConfig(AppConfig):
    name = "tradepost.money"
    label = "money"
    verbose_name = _("Exchange rates")
