"""`tradepost token create|list|revoke --user EMAIL`: manage a user's API tokens."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tradepost.accounts.errors import AccountError
from tradepost.accounts.models import User
from tradepost.accounts.tokens import token_create, token_revoke, tokens_for


class Command(BaseCommand):
    help = "Create, list or revoke a user's API tokens. The secret is printed once, on create."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        create = actions.add_parser("create", help="Create a token and print its secret once.")
        create.add_argument("--user", required=True, help="The user's email address.")
        create.add_argument("--name", default="Command line", help="What the token is for.")
        listing = actions.add_parser("list", help="List the user's tokens (never the secrets).")
        listing.add_argument("--user", required=True, help="The user's email address.")
        revoke = actions.add_parser("revoke", help="Revoke one of the user's tokens.")
        revoke.add_argument("--user", required=True, help="The user's email address.")
        revoke.add_argument("--id", type=int, required=True, help="The token's id (see list).")

    def handle(self, *args, **options) -> None:
        user = User.objects.filter(email__iexact=(options["user"] or "").strip()).first()
        if user is None:
            raise CommandError(f"No user with the email address {options['user']!r}.")
        action = options["action"]
        if action == "create":
            try:
                token, secret = token_create(user=user, name=options["name"])
            except AccountError as exc:
                raise CommandError(exc.message) from None
            self.stderr.write(
                f"Token {token.id} ({token.name!r}) created for {user.email}. "
                "The secret is shown only now:"
            )
            self.stdout.write(secret)
        elif action == "list":
            rows = list(tokens_for(user))
            if not rows:
                self.stdout.write(f"{user.email} has no tokens.")
            for token in rows:
                state = f"revoked {token.revoked_at:%Y-%m-%d}" if token.revoked_at else "active"
                used = f"{token.last_used_at:%Y-%m-%d %H:%M}" if token.last_used_at else "never"
                self.stdout.write(
                    f"{token.id}\t{token.prefix}…\t{token.name}\t"
                    f"created {token.created_at:%Y-%m-%d}\tlast used {used}\t{state}"
                )
        elif action == "revoke":
            if not token_revoke(user=user, token_id=options["id"]):
                raise CommandError(f"{user.email} has no active token with id {options['id']}.")
            self.stdout.write(f"Token {options['id']} revoked.")
