"""`tradepost createoperator --email E [--password P]`: an operator for the Django admin."""

from __future__ import annotations

import getpass

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.validators import validate_email

from tradepost.accounts.errors import AccountError
from tradepost.accounts.models import User
from tradepost.accounts.services import operator_grant


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
        try:
            user, created = operator_grant(actor=None, email=email, password=password)
        except AccountError as exc:
            raise CommandError(exc.message) from None
        if created:
            self.stdout.write(f"Operator {user.email} created. Log in at /admin/.")
        else:
            self.stdout.write(f"{user.email} is now an operator.")

    def _prompt_password(self) -> str:
        for _attempt in range(3):
            first = getpass.getpass("Password: ")
            second = getpass.getpass("Password (again): ")
            if first and first == second:
                return first
            self.stderr.write("The passwords are empty or do not match; try again.")
        raise CommandError("No password given.")
