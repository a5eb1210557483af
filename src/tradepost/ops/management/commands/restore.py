"""`tradepost restore FILE`: put back the database and media of a `tradepost backup`
archive, then rebuild the search index (`tradepost.ops.backup`)."""

from __future__ import annotations

import time
from pathlib import Path

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from tradepost.ops.backup import BackupError, restore_backup, vendor_name, verify_backup


class Command(BaseCommand):
    help = (
        "Restore a backup archive written by `tradepost backup`: replace the database and "
        "the media folder, migrate forward when the backup is from an older version, and "
        "rebuild the search index. Stop the site and the worker first."
    )

    def add_arguments(self, parser):
        parser.add_argument("archive", type=Path, help="The .tar.gz file to restore.")
        parser.add_argument(
            "--yes",
            action="store_true",
            help="Replace a database that already holds data (without it the restore refuses).",
        )
        parser.add_argument(
            "--check",
            action="store_true",
            help="Only verify the archive (read it whole, check its manifest, checksum and "
            "database copy) and change nothing.",
        )

    def handle(self, *args, **options):
        if options["check"]:
            self._check(options["archive"])
            return
        verbosity = options["verbosity"]
        started = time.perf_counter()
        try:
            result = restore_backup(
                options["archive"],
                replace_existing=options["yes"],
                report=self.stdout.write if verbosity > 0 else None,
            )
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        if result.migrated:
            if verbosity > 0:
                self.stdout.write("The backup is from an older version: migrating forward...")
            call_command(
                "migrate", interactive=False, verbosity=max(0, verbosity - 1), stdout=self.stdout
            )
        if verbosity > 0:
            self.stdout.write("Rebuilding the search index...")
        try:
            call_command("reindex", verbosity=verbosity, stdout=self.stdout, stderr=self.stderr)
        except CommandError as exc:
            raise CommandError(
                "The database and media files are restored, but the search index was not "
                f"rebuilt ({exc}). Stop the worker, then run `tradepost reindex`."
            ) from exc
        manifest = result.manifest
        counts = manifest["counts"]
        self.stdout.write(
            f"Restored the backup of {manifest['created_at']} in "
            f"{time.perf_counter() - started:.1f} s: "
            f"{counts['products']:,} products, {counts['companies']:,} companies, "
            f"{counts['users']:,} users, {manifest['media']['files']:,} media files. "
            "Restart the site and the worker; on other app machines run `tradepost reindex`."
        )

    def _check(self, archive: Path) -> None:
        try:
            manifest = verify_backup(archive)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        counts = manifest["counts"]
        self.stdout.write(
            f"{archive} is a sound backup of {manifest['created_at']} "
            f"({vendor_name(manifest['database']['vendor'])}): {counts['products']:,} "
            f"products, {counts['companies']:,} companies, {counts['users']:,} users, "
            f"{manifest['media']['files']:,} media files"
            + (", and the secret key." if manifest.get("secret_key") else ".")
        )
