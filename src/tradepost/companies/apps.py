from django.apps import AppConfig


class CompaniesConfig(AppConfig):
    name = "tradepost.companies"
    label = "companies"

    def ready(self) -> None:
        from tradepost.companies.search import SOURCE
        from tradepost.search.sources import register

        # Imported here: app modules with models cannot load before the registry is ready.
        register(companies=SOURCE)
