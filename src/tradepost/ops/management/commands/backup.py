"""`tradepost backup`: one archive of the database, the uploaded media and a manifest
(`tradepost.ops.backup`), safe to run while the site is serving."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from tradepost.ops.backup import BackupError, create_backup, private_roots


class Command(BaseCommand):
    help = (
        "Write a backup archive (.tar.gz) of the database (SQLite online copy or pg_dump), "
        "the uploaded media files and a manifest. The search index is not included (a "
        "restore rebuilds it), nor the private files (verification documents, message "
        "attachments: back them up separately, encrypted), nor the secret key unless "
        "--include-secret-key is given."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--output",
            "-o",
            type=Path,
            default=None,
            help="Archive file to write (default: TRADEPOST_HOME/backups/"
            "tradepost-backup-<UTC time>.tar.gz).",
        )
        parser.add_argument(
            "--include-secret-key",
            action="store_true",
            help="Also store the secret key (needed to keep sessions and signed links "
            "valid on a new machine); keep such an archive as safe as the key itself.",
        )

    def handle(self, *args, **options):
        report = self.stdout.write if options["verbosity"] > 1 else None
        try:
            result = create_backup(
                output=options["output"],
                include_secret_key=options["include_secret_key"],
                report=report,
            )
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        if options["verbosity"] == 0:
            return  # quiet for cron: errors still go to stderr
        counts = result.manifest["counts"]
        media = result.manifest["media"]
        self.stdout.write(
            f"Backup written to {result.path} ({result.size_bytes / 1_000_000:,.1f} MB) in "
            f"{result.seconds:.1f} s: {counts['products']:,} products, "
            f"{counts['companies']:,} companies, {counts['users']:,} users, "
            f"{media['files']:,} media files"
            + (", and the secret key." if result.manifest["secret_key"] else ".")
        )
        self.stdout.write(
            "Not in it, deliberately: the private files (verification documents, message "
            "attachments) in " + ", ".join(str(root) for root in private_roots()) + ". Back "
            "them up separately, encrypted (docs/operations.md, Backups)."
        )
