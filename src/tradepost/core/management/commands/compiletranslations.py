"""Compile the gettext catalogues with Babel, so no system gettext tools are needed."""

from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Compile locale/*/LC_MESSAGES/*.po into .mo files (skips up-to-date ones)."

    def handle(self, *args, **options):
        compiled = 0
        for locale_dir in settings.LOCALE_PATHS:
            for po_path in Path(locale_dir).glob("*/LC_MESSAGES/*.po"):
                mo_path = po_path.with_suffix(".mo")
                if mo_path.exists() and mo_path.stat().st_mtime >= po_path.stat().st_mtime:
                    continue
                with po_path.open("rb") as po_file:
                    catalog = read_po(po_file, locale=po_path.parts[-3])
                with mo_path.open("wb") as mo_file:
                    write_mo(mo_file, catalog, use_fuzzy=False)
                compiled += 1
        self.stdout.write(f"compiled {compiled} catalogue(s)")
