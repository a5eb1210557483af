from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "tradepost.catalog"
    label = "catalog"

    def ready(self) -> None:
        from tradepost.catalog.search import SOURCE
        from tradepost.catalog.services import listings_reprice
        from tradepost.money.services import rates_changed
        from tradepost.search.sources import register

        # Imported here: app modules with models cannot load before the registry is ready.
        rates_changed.connect(listings_reprice, dispatch_uid="catalog.listings_reprice")
        register(products=SOURCE)
