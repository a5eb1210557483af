from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ImportsConfig(AppConfig):
    name = "tradepost.imports"
    label = "imports"
    verbose_name = _("Catalogue import")
