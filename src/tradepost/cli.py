"""The `tradepost` command: Django's management commands with the project's settings.

Project commands: serve, worker, demo, token create --user EMAIL, createoperator,
compiletranslations, backup, restore FILE; and every Django command (migrate, shell, ...).
"""

from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tradepost.config.settings")
    from django.core.management import execute_from_command_line

    from tradepost.config.home import prepare_home

    prepare_home()

    execute_from_command_line(["tradepost", *(argv if argv is not None else sys.argv[1:])])


if __name__ == "__main__":
    main()
