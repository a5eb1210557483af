"""Backups: one archive holding the database, the uploaded media and a manifest.

An archive (`tradepost-backup-<UTC time>.tar.gz`) holds, in this order:

- `manifest.json`: format version, database vendor, the migrations applied to each app,
  creation time, a few counts, and the checksum of the database copy;
- `database.sqlite3` (SQLite: an online copy through SQLite's backup API, consistent while
  the site keeps serving, WAL mode) or `database.pgdump` (PostgreSQL: `pg_dump
  --format=custom`);
- `media/...`: the uploaded files (MEDIA_ROOT);
- `secret_key`: only when asked for (`--include-secret-key`).

The search index is left out: it is rebuilt from the database after a restore. So are the
private files (`private_roots`: verification documents under TRADEPOST_PRIVATE_ROOT, message
attachments), deliberately, even when a setting puts them inside MEDIA_ROOT: they may be read
only by their company and the operators, and an archive of public media is copied and kept
with less care. They are backed up separately, encrypted (docs/operations.md, "Backups"), and
a restore leaves them where they are.

The database is copied before the media, so a file uploaded during the backup is at worst
present without a row pointing to it, never the other way round. An archive is written
under a temporary name in its folder and renamed at the end: a backup that fails leaves no
archive under the final name.

A restore reads the whole archive into a staging folder and checks it (manifest, database
vendor, migrations, checksum, the database copy itself) before it changes anything; then it
replaces the database, replaces the media folder, migrates forward when the backup is from
older code, and rebuilds the search index.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder

from tradepost.accounts.models import User
from tradepost.catalog.models import Product
from tradepost.companies.models import Company
from tradepost.messaging.models import PrivateAttachmentStorage
from tradepost.search import selectors

#: Version of the archive layout; a restore refuses archives with a larger number.
FORMAT = 1
MANIFEST = "manifest.json"
SECRET_KEY_MEMBER = "secret_key"
MEDIA_PREFIX = "media"
DATABASE_MEMBERS = {"sqlite": "database.sqlite3", "postgresql": "database.pgdump"}
VENDOR_NAMES = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}
POSTGRES_CLIENT_HINT = (
    "install the PostgreSQL client tools (Debian and Ubuntu: `apt-get install "
    "postgresql-client`), of the server's major version or newer"
)

Report = Callable[[str], None]


class BackupError(Exception):
    """A backup or restore that cannot go on; the message is for the operator."""


@dataclass(frozen=True)
class BackupResult:
    path: Path
    manifest: dict[str, Any]
    size_bytes: int
    seconds: float


@dataclass(frozen=True)
class RestoreResult:
    manifest: dict[str, Any]
    migrated: bool


# ---------------------------------------------------------------------------------------
# The state of this installation


def _connection(using: str = DEFAULT_DB_ALIAS) -> Any:
    return connections[using]


def vendor_name(vendor: str) -> str:
    return VENDOR_NAMES.get(vendor, vendor)


def data_counts(*, using: str = DEFAULT_DB_ALIAS) -> dict[str, int]:
    """Users, companies and products in the database (0 where a table does not exist yet)."""
    tables = set(_connection(using).introspection.table_names())
    counts = {}
    for label, model in (("users", User), ("companies", Company), ("products", Product)):
        table = model._meta.db_table
        counts[label] = model._default_manager.using(using).count() if table in tables else 0
    return counts


def applied_migrations(*, using: str = DEFAULT_DB_ALIAS) -> dict[str, list[str]]:
    """The migrations applied to the database, by app label."""
    recorder = MigrationRecorder(_connection(using))
    applied: dict[str, list[str]] = {}
    for app_label, name in recorder.applied_migrations():
        applied.setdefault(app_label, []).append(name)
    return {app: sorted(names) for app, names in sorted(applied.items())}


def _known_migrations() -> tuple[set[str], set[tuple[str, str]], set[tuple[str, str]]]:
    """(apps with migrations, every migration this code knows, the migrations it needs)."""
    loader = MigrationLoader(None, ignore_no_migrations=True)
    needed = set(loader.disk_migrations)
    known = set(needed)
    for migration in loader.disk_migrations.values():
        known.update((app, name) for app, name in migration.replaces)
    apps = {app for app, _name in known}
    return apps, known, needed


# ---------------------------------------------------------------------------------------
# Backup


def default_backup_path(now: datetime | None = None) -> Path:
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    return Path(settings.HOME) / "backups" / f"tradepost-backup-{stamp}.tar.gz"


def create_backup(
    *,
    output: Path | None = None,
    include_secret_key: bool = False,
    report: Report | None = None,
    using: str = DEFAULT_DB_ALIAS,
) -> BackupResult:
    """Write one archive of the database and the media folder; return where and what."""
    say = report or (lambda message: None)
    started = time.perf_counter()
    connection = _connection(using)
    vendor = connection.vendor
    if vendor not in DATABASE_MEMBERS:
        raise BackupError(f"Backups support SQLite and PostgreSQL, not {vendor}.")
    target = _archive_target(output)
    media_root = Path(settings.MEDIA_ROOT)
    # Partial files start with a dot and do not end in .tar.gz, so that a rotation script
    # matching tradepost-backup-*.tar.gz never picks one up.
    descriptor, partial_name = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".partial"
    )
    partial = Path(partial_name)
    try:
        with tempfile.TemporaryDirectory(dir=target.parent, prefix=".tradepost-backup-") as tmp:
            database_file = Path(tmp) / DATABASE_MEMBERS[vendor]
            say(f"Copying the {vendor_name(vendor)} database...")
            if vendor == "sqlite":
                _dump_sqlite(connection, database_file)
            else:
                _dump_postgresql(connection.settings_dict, database_file)
            media_files = list(_media_files(media_root))
            manifest = _manifest(
                vendor=vendor,
                database_file=database_file,
                media_files=media_files,
                include_secret_key=include_secret_key,
                using=using,
            )
            say(f"Writing the archive ({len(media_files):,} media files)...")
            with os.fdopen(descriptor, "wb") as raw:
                descriptor = -1
                with tarfile.open(fileobj=raw, mode="w:gz", compresslevel=6) as archive:
                    _add_bytes(archive, MANIFEST, json.dumps(manifest, indent=2).encode())
                    archive.add(database_file, arcname=database_file.name, recursive=False)
                    for path, _size in media_files:
                        relative = path.relative_to(media_root).as_posix()
                        with contextlib.suppress(FileNotFoundError):  # deleted meanwhile
                            archive.add(path, arcname=f"{MEDIA_PREFIX}/{relative}")
                    if include_secret_key:
                        _add_bytes(archive, SECRET_KEY_MEMBER, settings.SECRET_KEY.encode())
                raw.flush()
                os.fsync(raw.fileno())
        os.replace(partial, target)
    except BaseException as exc:
        if descriptor != -1:
            os.close(descriptor)
        partial.unlink(missing_ok=True)
        if isinstance(exc, OSError | sqlite3.Error):
            raise BackupError(f"The backup failed, no archive was written: {exc}") from exc
        raise
    _fsync_folder(target.parent)
    return BackupResult(
        path=target,
        manifest=manifest,
        size_bytes=target.stat().st_size,
        seconds=time.perf_counter() - started,
    )


def _archive_target(output: Path | None) -> Path:
    """Where the archive goes: `output`, or a dated name in the data folder's backups."""
    target = Path(output) if output is not None else default_backup_path()
    if target.exists() and target.is_dir():
        raise BackupError(f"{target} is a folder; give a file name for the archive.")
    if output is None:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    elif not target.parent.is_dir():
        raise BackupError(f"The folder {target.parent} does not exist.")
    return target


def _manifest(
    *,
    vendor: str,
    database_file: Path,
    media_files: list[tuple[Path, int]],
    include_secret_key: bool,
    using: str,
) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "database": {
            "vendor": vendor,
            "member": database_file.name,
            "bytes": database_file.stat().st_size,
            "sha256": _sha256(database_file),
        },
        "migrations": applied_migrations(using=using),
        "counts": data_counts(using=using),
        "media": {
            "files": len(media_files),
            "bytes": sum(size for _path, size in media_files),
        },
        "secret_key": include_secret_key,
    }


def _dump_sqlite(connection: Any, destination: Path) -> None:
    """An online copy through SQLite's backup API: one consistent snapshot, while other
    processes keep reading and writing (WAL). The copy is one self-contained file."""
    connection.ensure_connection()
    copy = sqlite3.connect(destination)
    try:
        connection.connection.backup(copy)
        copy.execute("PRAGMA journal_mode=DELETE")
    finally:
        copy.close()


def _dump_postgresql(settings_dict: dict[str, Any], destination: Path) -> None:
    command = [
        _postgres_client("pg_dump"),
        "--format=custom",
        "--no-password",
        f"--file={destination}",
        *_postgres_connection_arguments(settings_dict),
    ]
    _run_postgres_client(command, settings_dict, action="pg_dump could not copy the database")


def private_roots() -> list[Path]:
    """The folders of files only their company and the operators may read: the private root
    (verification documents) and the message attachments' folder. Never in an archive."""
    roots = [Path(settings.TRADEPOST_PRIVATE_ROOT), Path(PrivateAttachmentStorage().location)]
    return [root.resolve() for root in roots]


def _left_out_folders() -> list[Path]:
    """Folders a media archive never holds (nor a restore empties): the search index and
    the private files."""
    return [Path(settings.TRADEPOST_INDEX_DIR).resolve(), *private_roots()]


def _is_left_out(path: Path, left_out: list[Path]) -> bool:
    resolved = path.resolve()
    return any(resolved == root or root in resolved.parents for root in left_out)


def _media_files(media_root: Path) -> Iterator[tuple[Path, int]]:
    """Regular files under the media folder (links and special files are left out), with
    their sizes, in a stable order. The search index and the private files are never part
    of it, wherever they are configured."""
    if not media_root.is_dir():
        return
    left_out = _left_out_folders()
    for folder, subfolders, files in os.walk(media_root):
        subfolders.sort()
        here = Path(folder)
        subfolders[:] = [
            name
            for name in subfolders
            if not (here / name).is_symlink() and not _is_left_out(here / name, left_out)
        ]
        for name in sorted(files):
            path = here / name
            try:
                status = path.lstat()
            except FileNotFoundError:
                continue
            if path.is_file() and not path.is_symlink():
                yield path, status.st_size


def _add_bytes(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = int(time.time())
    info.mode = 0o600
    archive.addfile(info, io.BytesIO(data))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _fsync_folder(folder: Path) -> None:
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - not on Linux
        return
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


# ---------------------------------------------------------------------------------------
# Reading and checking an archive


def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest of an archive (its first member), checked for shape only."""
    path = Path(path)
    if not path.is_file():
        raise BackupError(f"No backup file at {path}.")
    try:
        with tarfile.open(path, mode="r:gz") as archive:
            first = archive.next()
            if first is None or first.name != MANIFEST or not first.isfile():
                raise BackupError(f"{path} is not a Tradepost backup: it has no {MANIFEST}.")
            handle = archive.extractfile(first)
            assert handle is not None
            raw = handle.read()
    except BackupError:
        raise
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        raise BackupError(
            f"{path} is not a readable Tradepost backup (damaged or not a .tar.gz archive: {exc})."
        ) from exc
    try:
        manifest = json.loads(raw)
    except ValueError as exc:
        raise BackupError(f"The manifest of {path} is damaged ({exc}).") from exc
    if (
        not isinstance(manifest, dict)
        or not isinstance(manifest.get("format"), int)
        or not isinstance(manifest.get("database"), dict)
        or not isinstance(manifest.get("migrations"), dict)
    ):
        raise BackupError(f"The manifest of {path} is damaged (fields are missing).")
    if manifest["format"] > FORMAT:
        raise BackupError(
            f"{path} was written by a newer version of Tradepost (archive format "
            f"{manifest['format']}; this version reads up to {FORMAT}). Restore it with that "
            "version or a later one."
        )
    return manifest


def check_compatible(manifest: dict[str, Any], *, using: str = DEFAULT_DB_ALIAS) -> list[str]:
    """Refuse a backup of another database vendor or from newer migrations than this code
    knows. Returns the migrations this code has that the backup lacks (applied by a
    `migrate` after the restore)."""
    vendor = _connection(using).vendor
    backup_vendor = manifest["database"].get("vendor")
    if backup_vendor != vendor:
        raise BackupError(
            f"This backup holds a {vendor_name(str(backup_vendor))} database, but the "
            f"configured database is {vendor_name(vendor)}. Restore it into a "
            f"{vendor_name(str(backup_vendor))} database (DATABASE_URL selects it)."
        )
    apps, known, needed = _known_migrations()
    in_backup = {
        (str(app), str(name))
        for app, names in manifest["migrations"].items()
        for name in (names if isinstance(names, list) else [])
    }
    # Apps this code does not have are left alone: Django keeps the rows of apps that were
    # removed from a project, so every backup may carry some.
    unknown = sorted(f"{app}.{name}" for app, name in in_backup - known if app in apps)
    if unknown:
        listed = ", ".join(unknown[:10])
        if len(unknown) > 10:
            listed += f" and {len(unknown) - 10:,} more"
        raise BackupError(
            "This backup was made by a newer version of Tradepost: its database has "
            f"migrations this version does not know ({listed}). Upgrade Tradepost to the "
            "version that made the backup (or a later one), then restore."
        )
    return sorted(f"{app}.{name}" for app, name in needed - in_backup)


@dataclass(frozen=True)
class StagedArchive:
    folder: Path
    manifest: dict[str, Any]
    database: Path
    media: Path
    secret_key: str | None


@contextlib.contextmanager
def staged_archive(
    path: Path, manifest: dict[str, Any], *, within: Path, using: str = DEFAULT_DB_ALIAS
) -> Iterator[StagedArchive]:
    """Extract the archive into a staging folder inside `within` and check every part;
    the folder is removed afterwards."""
    path = Path(path)
    vendor = manifest["database"]["vendor"]
    database_member = DATABASE_MEMBERS[vendor]
    within.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=within, prefix=".tradepost-restore-") as tmp:
        folder = Path(tmp)
        try:
            with tarfile.open(path, mode="r:gz") as archive:
                for member in archive:
                    name = member.name
                    wanted = name in {MANIFEST, database_member, SECRET_KEY_MEMBER} or (
                        name.startswith(f"{MEDIA_PREFIX}/") and (member.isfile() or member.isdir())
                    )
                    if wanted:
                        archive.extract(member, folder, filter="data")
        except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
            raise BackupError(
                f"{path} is damaged: it could not be read to the end ({exc}). Nothing was restored."
            ) from exc
        database = folder / database_member
        if not database.is_file():
            raise BackupError(f"{path} is damaged: it holds no {database_member}.")
        expected = manifest["database"].get("sha256")
        if expected and _sha256(database) != expected:
            raise BackupError(
                f"{path} is damaged: the database copy does not match its checksum. Nothing "
                "was restored."
            )
        if vendor == "sqlite":
            _check_sqlite_copy(database, path)
        else:
            _check_postgresql_dump(database, path)
        secret = folder / SECRET_KEY_MEMBER
        yield StagedArchive(
            folder=folder,
            manifest=manifest,
            database=database,
            media=folder / MEDIA_PREFIX,
            secret_key=secret.read_text().strip() if secret.is_file() else None,
        )


def _check_sqlite_copy(database: Path, archive: Path) -> None:
    try:
        copy = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)
        try:
            result = copy.execute("PRAGMA quick_check").fetchall()
        finally:
            copy.close()
    except sqlite3.DatabaseError as exc:
        raise BackupError(
            f"{archive} is damaged: its database copy is unreadable ({exc})."
        ) from exc
    if result != [("ok",)]:
        problems = "; ".join(str(row[0]) for row in result[:3])
        raise BackupError(f"{archive} is damaged: its database copy fails a check ({problems}).")


def _check_postgresql_dump(dump: Path, archive: Path) -> None:
    command = [_postgres_client("pg_restore"), "--list", str(dump)]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise BackupError(
            f"{archive} is damaged: pg_restore cannot read its database dump "
            f"({_last_lines(result.stderr)})."
        )


def verify_backup(path: Path, *, using: str = DEFAULT_DB_ALIAS) -> dict[str, Any]:
    """Read the whole archive and check it without changing anything; return its
    manifest."""
    manifest = read_manifest(path)
    check_compatible(manifest, using=using)
    # Staged beside the media folder, like a restore: the system's temporary folder may be
    # too small for a large database.
    with staged_archive(path, manifest, within=Path(settings.MEDIA_ROOT).parent, using=using):
        pass
    return manifest


# ---------------------------------------------------------------------------------------
# Restore


def restore_backup(
    path: Path,
    *,
    replace_existing: bool = False,
    report: Report | None = None,
    using: str = DEFAULT_DB_ALIAS,
) -> RestoreResult:
    """Replace the database and the media folder with the archive's; the caller rebuilds
    the search index afterwards. Refuses to overwrite a database that holds data unless
    `replace_existing`."""
    say = report or (lambda message: None)
    connection = _connection(using)
    manifest = read_manifest(path)
    missing_migrations = check_compatible(manifest, using=using)
    if not replace_existing:
        counts = data_counts(using=using)
        if any(counts.values()):
            raise BackupError(
                "The database already holds data ("
                f"{counts['users']:,} users, {counts['companies']:,} companies, "
                f"{counts['products']:,} products); a restore replaces all of it. Run again "
                "with --yes to go ahead."
            )
    if connection.in_atomic_block:
        raise BackupError("A restore cannot run inside a database transaction.")
    media_root = Path(settings.MEDIA_ROOT)
    say("Reading and checking the archive...")
    with staged_archive(path, manifest, within=media_root.parent, using=using) as staged:
        say(f"Restoring the {vendor_name(connection.vendor)} database...")
        if connection.vendor == "sqlite":
            _restore_sqlite(connection, staged.database)
        else:
            _restore_postgresql(connection, staged.database, say)
        say("Restoring the media files...")
        try:
            _replace_media(staged.media, media_root)
        except OSError as exc:
            raise BackupError(
                f"The database is restored, but the media files could not be: {exc}. Fix "
                "that and restore again."
            ) from exc
        if staged.secret_key is not None:
            _restore_secret_key(staged.secret_key, say)
    # This process's caches describe the database that was replaced.
    ContentType.objects.clear_cache()
    selectors.clear_caches()
    return RestoreResult(manifest=manifest, migrated=bool(missing_migrations))


def _restore_sqlite(connection: Any, database: Path) -> None:
    """Copy the backup into the configured database through the backup API (one write
    transaction: other connections see the old database or the new one, never a mix)."""
    # Close this process's connections (Django keeps an in-memory test database open
    # instead), then copy into a fresh one.
    connections.close_all()
    connection.ensure_connection()
    source = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)
    try:
        source.backup(connection.connection)
    except sqlite3.Error as exc:
        raise BackupError(f"The database could not be replaced: {exc}.") from exc
    finally:
        source.close()
    with contextlib.suppress(sqlite3.Error):
        connection.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connections.close_all()


def _restore_postgresql(connection: Any, dump: Path, say: Report) -> None:
    settings_dict = connection.settings_dict
    command = [
        _postgres_client("pg_restore"),
        "--clean",
        "--if-exists",
        "--no-owner",
        "--single-transaction",
        "--no-password",
        *_postgres_connection_arguments(settings_dict),
        str(dump),
    ]
    # pg_restore drops and recreates the tables, so it waits for every lock other sessions
    # hold on them (the dump itself turns lock_timeout off): say who may hold it up.
    others = _other_sessions(connection)
    if others:
        say(
            f"Note: {len(others)} other session(s) are connected to this database "
            f"({', '.join(sorted(set(others)))}); if the restore waits, stop the site and "
            "the worker."
        )
    # No connection of this process may hold a lock on the tables meanwhile.
    connections.close_all()
    _run_postgres_client(
        command, settings_dict, action="pg_restore could not restore the database (it is unchanged)"
    )


def _other_sessions(connection: Any) -> list[str]:
    """The other sessions connected to the configured PostgreSQL database, named by their
    application name or client address."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(nullif(application_name, ''), host(client_addr), 'local') "
            "FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
        )
        return [row[0] for row in cursor.fetchall()]


def _replace_media(staged_media: Path, media_root: Path) -> None:
    """Empty the media folder and move the backup's files in (the folder itself stays, so
    that it may be a mount point shared between machines). The search index and the private
    files stay where they are, should a setting have put them inside it."""
    media_root.mkdir(parents=True, exist_ok=True)
    left_out = _left_out_folders()
    for entry in list(media_root.iterdir()):
        if entry.is_dir() and not entry.is_symlink() and _is_left_out(entry, left_out):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    if staged_media.is_dir():
        for entry in sorted(staged_media.iterdir()):
            shutil.move(str(entry), str(media_root / entry.name))


def _restore_secret_key(secret_key: str, say: Report) -> None:
    key_file = Path(settings.HOME) / "secret_key"
    partial = key_file.with_name(".secret_key.partial")
    partial.write_text(secret_key)
    partial.chmod(0o600)
    os.replace(partial, key_file)
    say(f"Restored the secret key into {key_file}.")
    if os.environ.get("SECRET_KEY") and os.environ["SECRET_KEY"] != secret_key:
        say("Note: SECRET_KEY in the environment differs from the restored key, and wins.")


# ---------------------------------------------------------------------------------------
# PostgreSQL client programs


def _postgres_client(program: str) -> str:
    path = shutil.which(program)
    if path is None:
        raise BackupError(f"{program} was not found on PATH: {POSTGRES_CLIENT_HINT}.")
    return path


def _postgres_connection_arguments(settings_dict: dict[str, Any]) -> list[str]:
    arguments = []
    if settings_dict.get("HOST"):
        arguments.append(f"--host={settings_dict['HOST']}")
    if settings_dict.get("PORT"):
        arguments.append(f"--port={settings_dict['PORT']}")
    if settings_dict.get("USER"):
        arguments.append(f"--username={settings_dict['USER']}")
    arguments.append(f"--dbname={settings_dict['NAME']}")
    return arguments


def _postgres_environment(settings_dict: dict[str, Any]) -> dict[str, str]:
    """The password (never on the command line, where `ps` shows it) and the TLS options
    through the client's environment variables."""
    env = {**os.environ, "PGCONNECT_TIMEOUT": os.environ.get("PGCONNECT_TIMEOUT", "10")}
    if settings_dict.get("PASSWORD"):
        env["PGPASSWORD"] = str(settings_dict["PASSWORD"])
    options = settings_dict.get("OPTIONS") or {}
    for option, variable in (
        ("sslmode", "PGSSLMODE"),
        ("sslrootcert", "PGSSLROOTCERT"),
        ("sslcert", "PGSSLCERT"),
        ("sslkey", "PGSSLKEY"),
    ):
        if options.get(option):
            env[variable] = str(options[option])
    return env


def _run_postgres_client(
    command: list[str],
    settings_dict: dict[str, Any],
    *,
    action: str,
) -> None:
    env = _postgres_environment(settings_dict)
    result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        detail = _last_lines(result.stderr)
        hint = ""
        if "version mismatch" in detail:
            hint = f" The client must be as new as the server: {POSTGRES_CLIENT_HINT}."
        raise BackupError(f"{action}: {detail}.{hint}")


def _last_lines(text: str, count: int = 5) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " / ".join(lines[-count:]) or "no message"
