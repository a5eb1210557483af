from django.apps import AppConfig


class SourcingConfig(AppConfig):
    name = "tradepost.sourcing"
    label = "sourcing"

    def ready(self) -> None:
        from tradepost.search.sources import register
        from tradepost.sourcing.search import SOURCE, response_rates

        # Imported here: app modules with models cannot load before the registry is ready.
        register(requests=SOURCE, response_rates=response_rates)
