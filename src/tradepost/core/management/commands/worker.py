from django.core.management import call_command
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Run the background worker (emails and other queued side effects)."

    def add_arguments(self, parser):
        parser.add_argument("--batch", action="store_true", help="Run queued tasks, then exit.")

    def handle(self, *args, **options):
        extra = ["--batch"] if options["batch"] else []
        call_command("db_worker", "--queue-name", "*", *extra)
