"""`tradepost createoperator --email E [--password P]`: an operator for the Django admin."""

from __future__ import annotations

import getpass

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone

from tradepost.accounts.models import User


class Command(BaseCommand):
    help = (
        "Create an operator: a staff superuser who can use the admin at /admin/. "
        "Prompts for what is missing. An existing user with that email is promoted."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--email", help="The operator's email address.")
        parser.add_argument(
            "--password", help="The password (prompted for, unseen, when left out)."
        )
        parser.add_argument(
            "--noinput",
            "--no-input",
            action="store_false",
            dest="interactive",
            help="Never prompt; fail when something is missing.",
        )

    def handle(self, *args, **options) -> None:
        interactive = options["interactive"]
        email = (options["email"] or "").strip().lower()
        if not email:
            if not interactive:
                raise CommandError("--email is required with --noinput.")
            email = input("Email: ").strip().lower()
        try:
            validate_email(email)
        except ValidationError:
            raise CommandError(f"{email!r} is not a valid email address.") from None

        existing = User.objects.filter(email__iexact=email).first()
        password = options["password"]
        if password is None and existing is None:
            if not interactive:
                raise CommandError("--password is required with --noinput.")
            password = self._prompt_password()
        if password is not None:
            try:
                validate_password(password, user=existing or User(email=email))
            except ValidationError as exc:
                raise CommandError(" ".join(exc.messages)) from None

        with transaction.atomic():
            if existing is not None:
                existing.is_staff = True
                existing.is_superuser = True
                existing.is_active = True
                if existing.email_verified_at is None:
                    existing.email_verified_at = timezone.now()
                if password is not None:
                    existing.set_password(password)
                existing.save()
                self.stdout.write(f"{existing.email} is now an operator.")
                return
            user = User.objects.create_superuser(email, password)
        self.stdout.write(f"Operator {user.email} created. Log in at /admin/.")

    def _prompt_password(self) -> str:
        for _attempt in range(3):
            first = getpass.getpass("Password: ")
            second = getpass.getpass("Password (again): ")
            if first and first == second:
                return first
            self.stderr.write("The passwords are empty or do not match; try again.")
        raise CommandError("No password given.")
