from django.core.management.base import BaseCommand

from tradepost.sourcing.services import request_expire_due


class Command(BaseCommand):
    help = "Mark open buying requests whose deadline has passed as expired."

    def handle(self, *args, **options):
        count = request_expire_due()
        self.stdout.write(f"{count} request(s) expired.")
