from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WebhooksConfig(AppConfig):
    name = "tradepost.webhooks"
    label = "webhooks"
    verbose_name = _("Webhooks")

    def ready(self) -> None:
        # The apps below emit through `core.events`; their events are stored here, in the
        # emitting transaction (ADR 0028).
        from tradepost.core.events import set_recorder
        from tradepost.webhooks.outbox import record_event

        set_recorder(record_event)
