"""`tradepost demo`: load the demo marketplace into an empty database and print its logins."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from tradepost.demo.errors import DemoError
from tradepost.demo.generator import DEFAULT_COMPANIES, DEFAULT_PRODUCTS, DEFAULT_SEED
from tradepost.demo.selectors import database_has_data
from tradepost.demo.services import DemoLogin, demo_load, demo_logins


class Command(BaseCommand):
    help = (
        "Load a demo marketplace (companies in many countries, products in Chinese, English, "
        "Spanish, Vietnamese and Turkish, with pictures) into an empty database, and print "
        "the demo logins."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="Do nothing (but print the demo logins) when the database already has data.",
        )
        parser.add_argument(
            "--seed", type=int, default=DEFAULT_SEED, help="Random seed (default: fixed)."
        )
        parser.add_argument(
            "--companies",
            type=int,
            default=DEFAULT_COMPANIES,
            help=f"Number of companies (default {DEFAULT_COMPANIES}).",
        )
        parser.add_argument(
            "--products",
            type=int,
            default=DEFAULT_PRODUCTS,
            help=f"Number of products (default {DEFAULT_PRODUCTS}).",
        )

    def handle(self, *args, **options):
        if options["if_empty"] and database_has_data():
            self.stdout.write(
                _("The database already has data; the demo marketplace was not loaded.")
            )
            self._print_logins(demo_logins())
            return
        try:
            result = demo_load(
                seed=options["seed"],
                companies=options["companies"],
                products=options["products"],
                progress=self._progress if options["verbosity"] > 0 else None,
            )
        except DemoError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            _(
                "Demo marketplace loaded in %(seconds).1f s: %(companies)d companies in "
                "%(countries)d countries, %(products)d products (%(translations)d "
                "translations, %(pictures)d pictures)."
            )
            % {
                "seconds": result.seconds,
                "companies": result.companies,
                "countries": result.countries,
                "products": result.products,
                "translations": result.translations,
                "pictures": result.pictures,
            }
        )
        self.stdout.write(
            _(
                "Buying requests: %(requests)d (open, awarded and expired) with %(quotations)d "
                "quotations and %(conversations)d conversations."
            )
            % {
                "requests": result.requests,
                "quotations": result.quotations,
                "conversations": result.conversations,
            }
        )
        self.stdout.write(
            _(
                "Membership history: %(periods)d subscription periods over the last three "
                "years (the operator's membership analytics)."
            )
            % {"periods": result.membership_periods}
        )
        self.stdout.write(
            _("Reviews: %(reviews)d of awarded suppliers, by the buyers that awarded them.")
            % {"reviews": result.reviews}
        )
        self._print_logins(result.logins)

    def _progress(self, message: str) -> None:
        self.stdout.write(message)

    def _print_logins(self, logins: list[DemoLogin]) -> None:
        if not logins:
            return
        labels = {
            "supplier": _("Supplier"),
            "buyer": _("Buyer"),
            "operator": _("Operator (also for /admin/)"),
        }
        self.stdout.write("")
        self.stdout.write(_("Demo logins:"))
        for login in logins:
            password = login.password or _("(changed since the demo was loaded)")
            line = f"  {labels.get(login.role, login.role):<28} {login.email:<24} {password}"
            if login.company:
                line += f"   {login.company}"
            self.stdout.write(line)
        self.stdout.write("")
