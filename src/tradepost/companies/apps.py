from django.apps import AppConfig


class CompaniesConfig(AppConfig):
    name = "tradepost.companies"
    label = "companies"
