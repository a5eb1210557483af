from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save
from django.utils.translation import gettext_lazy as _


class MoneyConfig(AppConfig):
    name = "tradepost.money"
    label = "money"
    verbose_name = _("Exchange rates")

    def ready(self) -> None:
        from tradepost.money.models import ExchangeRate
        from tradepost.money.rates import forget_rates

        # A rate written anywhere in this process is converted with at once.
        post_save.connect(forget_rates, sender=ExchangeRate, dispatch_uid="money-rate-saved")
        post_delete.connect(forget_rates, sender=ExchangeRate, dispatch_uid="money-rate-deleted")
