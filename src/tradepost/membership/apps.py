from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MembershipConfig(AppConfig):
    name = "tradepost.membership"
    label = "membership"
    verbose_name = _("Membership")

    def ready(self) -> None:
        from tradepost.membership.badges import gold_badge_until
        from tradepost.search.sources import register

        # Imported here: app modules with models cannot load before the registry is ready.
        # The search documents keep the last day of each company's Gold Supplier badge.
        register(badges=gold_badge_until)
