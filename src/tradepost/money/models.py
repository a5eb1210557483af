from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class ExchangeRate(models.Model):
    """US dollars for one unit of a currency, as of a date; maintained by the operator."""

    currency = models.CharField(_("currency"), max_length=3, unique=True)
    rate_to_usd = models.DecimalField(
        _("US dollars per unit"), max_digits=20, decimal_places=12, help_text=_("1 unit = N USD")
    )
    as_of = models.DateField(_("as of"))

    class Meta:
        # The table was created by the sourcing app, which held the model first.
        db_table = "sourcing_exchangerate"
        verbose_name = _("exchange rate")
        verbose_name_plural = _("exchange rates")
        ordering = ["currency"]
        constraints = [
            models.CheckConstraint(condition=Q(rate_to_usd__gt=0), name="exchange_rate_positive")
        ]

    def __str__(self) -> str:
        return f"{self.currency} {self.rate_to_usd} ({self.as_of})"
