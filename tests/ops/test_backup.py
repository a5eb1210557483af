"""`tradepost backup` and `tradepost restore`: a round trip on the test database (SQLite or
PostgreSQL, whichever the run uses), and the archives a restore refuses."""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from tests.factories.accounts import make_user
from tests.factories.catalog import make_product
from tests.factories.companies import make_company
from tradepost.accounts.models import User
from tradepost.catalog.models import Product
from tradepost.companies.models import Company
from tradepost.ops import backup
from tradepost.search.selectors import search_products

# The restore replaces the database from outside the test's transaction (pg_restore is
# another connection; SQLite's backup API needs a connection outside any transaction).
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _postgres_clients():
    """On PostgreSQL these tests need pg_dump and pg_restore: a missing client fails them
    (never a skip, so that the PostgreSQL run in CI cannot pass without testing them)."""
    if connection.vendor == "postgresql":
        missing = [name for name in ("pg_dump", "pg_restore") if shutil.which(name) is None]
        if missing:
            pytest.fail(
                f"{' and '.join(missing)} not found: install postgresql-client to test "
                "backups on PostgreSQL"
            )


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def write_media(relative: str, data: bytes) -> Path:
    path = Path(settings.MEDIA_ROOT) / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def media_tree() -> dict[str, bytes]:
    root = Path(settings.MEDIA_ROOT)
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def members(archive: Path) -> list[str]:
    with tarfile.open(archive, "r:gz") as tar:
        return tar.getnames()


def rewrite_manifest(archive: Path, target: Path, change) -> Path:
    """A copy of `archive` whose manifest went through `change`."""
    with tarfile.open(archive, "r:gz") as source, tarfile.open(target, "w:gz") as copy:
        for member in source:
            handle = source.extractfile(member) if member.isfile() else None
            if member.name == "manifest.json":
                assert handle is not None
                manifest = json.loads(handle.read())
                change(manifest)
                data = json.dumps(manifest).encode()
                member.size = len(data)
                handle = io.BytesIO(data)
            copy.addfile(member, handle)
    return target


def catalogue() -> dict[str, object]:
    return {
        "products": sorted(Product.objects.values_list("id", "title", "status")),
        "companies": sorted(Company.objects.values_list("id", "legal_name")),
        "users": sorted(User.objects.values_list("id", "email")),
    }


def test_round_trip_restores_rows_media_and_search(tmp_path):
    owner = make_user(email="owner@example.com")
    company = make_company(owner=owner, legal_name="Ningbo Woodcraft Co., Ltd.")
    board = make_product(company=company, title="Walnut serving board", slug="walnut-board")
    make_product(company=company, title="Bamboo cutting board", slug="bamboo-board")
    write_media("products/walnut.jpg", b"\xff\xd8walnut picture")
    write_media("logos/walnut-works.png", b"\x89PNGlogo")
    before_rows, before_media = catalogue(), media_tree()

    archive = tmp_path / "site.tar.gz"
    output = run("backup", "--output", str(archive))
    assert f"Backup written to {archive}" in output
    assert "2 products, 1 companies, 1 users, 2 media files." in output
    assert sorted(members(archive)) == [
        "database.pgdump" if connection.vendor == "postgresql" else "database.sqlite3",
        "manifest.json",
        "media/logos/walnut-works.png",
        "media/products/walnut.jpg",
    ]

    # Afterwards: a listing deleted, a company renamed, a new account, media changed.
    Product.objects.filter(id=board.id).delete()
    Company.objects.filter(id=company.id).update(legal_name="Renamed Ltd.")
    make_user(email="later@example.com")
    (Path(settings.MEDIA_ROOT) / "products/walnut.jpg").unlink()
    write_media("logos/walnut-works.png", b"overwritten")
    write_media("products/later.jpg", b"uploaded after the backup")
    run("reindex")
    assert search_products(query="walnut", language="en").total == 0

    output = run("restore", str(archive), "--yes")
    assert "Restored the backup" in output
    assert catalogue() == before_rows
    assert media_tree() == before_media
    result = search_products(query="walnut", language="en")
    assert [hit.product.id for hit in result.hits] == [board.id]
    # The restored database keeps working: sequences continue past the restored rows.
    assert make_product(company=Company.objects.get(), slug="after").id > board.id


def test_restore_refuses_a_database_with_data_without_yes(tmp_path):
    make_product(title="Linen tablecloth")
    archive = tmp_path / "site.tar.gz"
    run("backup", "--output", str(archive))
    Product.objects.update(title="Changed")
    with pytest.raises(CommandError, match=r"already holds data .* --yes"):
        run("restore", str(archive))
    assert list(Product.objects.values_list("title", flat=True)) == ["Changed"]
    # An empty database (migrated, nothing in it) takes a restore without --yes.
    call_command("flush", interactive=False, verbosity=0)
    run("restore", str(archive))
    assert list(Product.objects.values_list("title", flat=True)) == ["Linen tablecloth"]


def test_backup_leaves_out_the_secret_key_and_the_search_index_unless_asked(tmp_path):
    make_product(title="Cotton tote bag")
    run("reindex")  # an index exists on disk
    plain = tmp_path / "plain.tar.gz"
    run("backup", "--output", str(plain))
    assert "secret_key" not in members(plain)
    assert not any("index" in name for name in members(plain))

    with_key = tmp_path / "with-key.tar.gz"
    assert "and the secret key" in run("backup", "--output", str(with_key), "--include-secret-key")
    with tarfile.open(with_key, "r:gz") as tar:
        handle = tar.extractfile("secret_key")
        assert handle is not None
        assert handle.read().decode() == settings.SECRET_KEY


def test_restore_writes_a_backed_up_secret_key(tmp_path, settings):
    make_product()
    archive = tmp_path / "with-key.tar.gz"
    run("backup", "--output", str(archive), "--include-secret-key")
    settings.HOME = tmp_path / "home"
    settings.HOME.mkdir()
    (settings.HOME / "secret_key").write_text("another key")
    run("restore", str(archive), "--yes")
    key_file = settings.HOME / "secret_key"
    assert key_file.read_text() == settings.SECRET_KEY
    assert key_file.stat().st_mode & 0o777 == 0o600


def test_default_name_and_manifest(tmp_path, settings):
    settings.HOME = tmp_path
    make_product()
    output = run("backup")
    (archive,) = (tmp_path / "backups").iterdir()
    assert archive.name.startswith("tradepost-backup-") and archive.name.endswith("Z.tar.gz")
    assert str(archive) in output
    assert archive.stat().st_mode & 0o777 == 0o600
    manifest = backup.read_manifest(archive)
    assert manifest["format"] == backup.FORMAT
    assert manifest["database"]["vendor"] == connection.vendor
    assert manifest["counts"] == {"users": 0, "companies": 1, "products": 1}
    assert "0001_initial" in manifest["migrations"]["catalog"]


def test_a_failed_backup_leaves_no_archive(tmp_path, monkeypatch):
    make_product()
    write_media("products/a.jpg", b"picture")

    def fail(media_root):
        raise OSError("disk full")

    monkeypatch.setattr(backup, "_media_files", fail)
    with pytest.raises(CommandError, match="no archive was written: disk full"):
        run("backup", "--output", str(tmp_path / "site.tar.gz"))
    assert list(tmp_path.iterdir()) == [tmp_path / "media"]


def test_damaged_or_missing_archives_are_refused_and_change_nothing(tmp_path):
    product = make_product(title="Hemp rope")
    write_media("products/rope.jpg", b"rope")
    archive = tmp_path / "site.tar.gz"
    run("backup", "--output", str(archive))
    Product.objects.filter(id=product.id).update(title="Changed")
    data = archive.read_bytes()

    truncated = tmp_path / "truncated.tar.gz"
    truncated.write_bytes(data[: len(data) // 2])
    flipped = tmp_path / "flipped.tar.gz"
    middle = len(data) // 2
    flipped.write_bytes(data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1 :])
    not_gzip = tmp_path / "notes.tar.gz"
    not_gzip.write_text("hello")
    no_manifest = tmp_path / "no-manifest.tar.gz"
    with tarfile.open(no_manifest, "w:gz") as tar:
        tar.add(archive, arcname="something-else")
    bad_checksum = rewrite_manifest(
        archive,
        tmp_path / "bad-checksum.tar.gz",
        lambda manifest: manifest["database"].update(sha256="0" * 64),
    )
    cases = [
        (tmp_path / "missing.tar.gz", "No backup file at"),
        (truncated, "damaged|not a readable"),
        (flipped, "damaged|not a readable"),
        (not_gzip, "not a readable Tradepost backup"),
        (no_manifest, "has no manifest.json"),
        (bad_checksum, "does not match its checksum"),
    ]
    for path, message in cases:
        with pytest.raises(CommandError, match=message):
            run("restore", str(path), "--yes")
        with pytest.raises(CommandError, match=message):
            run("restore", str(path), "--check")
    assert Product.objects.get(id=product.id).title == "Changed"
    assert media_tree() == {"products/rope.jpg": b"rope"}
    assert "is a sound backup" in run("restore", str(archive), "--check")


def test_an_archive_of_another_database_vendor_is_refused(tmp_path):
    make_product()
    archive = tmp_path / "site.tar.gz"
    run("backup", "--output", str(archive))
    other = "sqlite" if connection.vendor == "postgresql" else "postgresql"
    foreign = rewrite_manifest(
        archive,
        tmp_path / "foreign.tar.gz",
        lambda manifest: manifest["database"].update(vendor=other),
    )
    with pytest.raises(CommandError, match=r"holds a (SQLite|PostgreSQL) database, but the"):
        run("restore", str(foreign), "--yes")


def test_an_archive_from_newer_migrations_is_refused(tmp_path):
    make_product()
    archive = tmp_path / "site.tar.gz"
    run("backup", "--output", str(archive))
    newer = rewrite_manifest(
        archive,
        tmp_path / "newer.tar.gz",
        lambda manifest: manifest["migrations"]["catalog"].append("9999_from_the_future"),
    )
    with pytest.raises(CommandError, match=r"newer version of Tradepost.*catalog\.9999"):
        run("restore", str(newer), "--yes")
    with pytest.raises(CommandError, match="newer version"):
        run("restore", str(newer), "--check")


def test_an_archive_from_older_migrations_is_migrated_forward(tmp_path, monkeypatch):
    make_product()
    archive = tmp_path / "site.tar.gz"
    run("backup", "--output", str(archive))
    migrated = []
    real_call_command = call_command

    def spy(name, *args, **kwargs):
        if name == "migrate":
            migrated.append(name)
        return real_call_command(name, *args, **kwargs)

    from tradepost.ops.management.commands import restore

    monkeypatch.setattr(restore, "call_command", spy)
    run("restore", str(archive), "--yes")
    assert migrated == []
    older = rewrite_manifest(
        archive,
        tmp_path / "older.tar.gz",
        lambda manifest: manifest["migrations"]["catalog"].pop(),
    )
    run("restore", str(older), "--yes")
    assert migrated == ["migrate"]


def test_missing_postgres_client_names_the_package(monkeypatch):
    monkeypatch.setattr(backup.shutil, "which", lambda name: None)
    with pytest.raises(backup.BackupError, match=r"pg_dump was not found.*postgresql-client"):
        backup._postgres_client("pg_dump")


def test_postgres_password_goes_through_the_environment(monkeypatch, tmp_path):
    calls = []

    def fake_run(command, **kwargs):
        calls.append((command, kwargs["env"]))
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(backup.subprocess, "run", fake_run)
    monkeypatch.setattr(backup.shutil, "which", lambda name: f"/usr/bin/{name}")
    backup._dump_postgresql(
        {
            "NAME": "tradepost",
            "USER": "tp",
            "PASSWORD": "s3cret",
            "HOST": "db",
            "PORT": 5432,
            "OPTIONS": {"sslmode": "require"},
        },
        tmp_path / "dump",
    )
    ((command, env),) = calls
    assert "s3cret" not in " ".join(command)
    assert env["PGPASSWORD"] == "s3cret"
    assert env["PGSSLMODE"] == "require"
    assert "--format=custom" in command
    assert {"--host=db", "--port=5432", "--username=tp", "--dbname=tradepost"} <= set(command)


def test_the_cli_reports_a_damaged_archive_without_a_traceback(tmp_path):
    damaged = tmp_path / "damaged.tar.gz"
    damaged.write_bytes(gzip.compress(b"not a tar archive at all")[:20])
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["TRADEPOST_HOME"] = str(tmp_path / "home")
    result = subprocess.run(
        [sys.executable, "-m", "tradepost.cli", "restore", str(damaged), "--yes"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert "is not a readable Tradepost backup" in result.stderr
    assert "Traceback" not in result.stderr
