"""`tradepost generate`: append a large generated catalogue (for benchmarks and trials)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from tradepost.core.management.progress import progress_bar
from tradepost.demo.bulk import CHUNK_SIZE, default_workers, generate_catalogue
from tradepost.demo.errors import DemoError
from tradepost.demo.generator import DEFAULT_SEED


class Command(BaseCommand):
    help = (
        "Append a large generated catalogue (the demo's vocabulary and language mix, "
        "published, without new pictures) to the database. Outbox rows are written for the "
        "search index; with --no-outbox run `tradepost reindex` afterwards."
    )

    def add_arguments(self, parser):
        parser.add_argument("--products", type=int, required=True, help="Number of products.")
        parser.add_argument(
            "--companies",
            type=int,
            default=None,
            help="Number of new companies (default: one per 20 products).",
        )
        parser.add_argument(
            "--seed", type=int, default=DEFAULT_SEED, help="Random seed (default: fixed)."
        )
        parser.add_argument(
            "--no-outbox",
            action="store_true",
            help="Write no search outbox rows (faster); run `tradepost reindex` afterwards.",
        )
        parser.add_argument(
            "--no-images",
            action="store_true",
            help="Do not reuse the demo's pictures for the new products.",
        )
        parser.add_argument(
            "--workers",
            type=int,
            default=None,
            help="Processes planning products (default: one per CPU).",
        )
        parser.add_argument(
            "--chunk-size",
            type=int,
            default=CHUNK_SIZE,
            help=f"Products per transaction (default {CHUNK_SIZE}).",
        )

    def handle(self, *args, **options):
        total, quiet = max(0, options["products"]), options["verbosity"] == 0
        try:
            with progress_bar(self, total=total, unit="products", quiet=quiet) as bar:
                result = generate_catalogue(
                    products=options["products"],
                    companies=options["companies"],
                    seed=options["seed"],
                    outbox=not options["no_outbox"],
                    images=not options["no_images"],
                    chunk_size=max(100, options["chunk_size"]),
                    workers=max(1, options["workers"] or default_workers()),
                    progress=bar.update,
                )
        except DemoError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            _(
                "Generated %(products)d products (%(translations)d translations, %(images)d "
                "pictures reused) of %(companies)d new companies in %(seconds).1f s: "
                "%(rate).0f products/s."
            )
            % {
                "products": result.products,
                "translations": result.translations,
                "images": result.images,
                "companies": result.companies,
                "seconds": result.seconds,
                "rate": result.products_per_second,
            }
        )
        if options["no_outbox"]:
            self.stdout.write(_("No outbox rows were written: run `tradepost reindex` now."))
