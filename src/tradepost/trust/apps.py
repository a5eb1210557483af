from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TrustConfig(AppConfig):
    name = "tradepost.trust"
    label = "trust"
    verbose_name = _("Trust")
