"""Private files (verification documents, message attachments) are never in `tradepost backup`'s
archive of public media, wherever a setting puts them, and a restore leaves them alone: they
are backed up separately, encrypted (docs/operations.md, "Backups")."""

from __future__ import annotations

import shutil
import tarfile
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.urls import get_resolver
from django.urls.resolvers import URLPattern, URLResolver

from tests.factories.catalog import make_product
from tests.factories.trust import submit_verification
from tradepost.config import settings as site_settings
from tradepost.messaging.models import PrivateAttachmentStorage
from tradepost.ops import backup

# As tests/ops/test_backup.py: a restore works outside the test's transaction.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _postgres_clients():
    """On PostgreSQL, pg_dump and pg_restore must be there (a failure, never a skip)."""
    if connection.vendor == "postgresql":
        missing = [name for name in ("pg_dump", "pg_restore") if shutil.which(name) is None]
        if missing:
            pytest.fail(f"{' and '.join(missing)} not found: install postgresql-client")


def names(archive: Path) -> list[str]:
    with tarfile.open(archive, "r:gz") as tar:
        return tar.getnames()


def write(path: Path, data: bytes = b"%PDF-1.4 private") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def run_backup(output: Path) -> str:
    out = StringIO()
    call_command("backup", "--output", str(output), stdout=out, stderr=StringIO())
    return out.getvalue()


def test_verification_documents_and_attachments_are_not_in_the_archive(tmp_path, cast):
    make_product()
    document = submit_verification(cast.owner).documents.get()
    attachment = write(Path(PrivateAttachmentStorage().location) / "2026/12/note.pdf")
    picture = write(Path(settings.MEDIA_ROOT) / "products/photo.jpg", b"\xff\xd8\xffpicture")
    archive = tmp_path / "site.tar.gz"
    output = run_backup(archive)
    members = names(archive)
    assert "media/products/photo.jpg" in members and picture.is_file()
    assert Path(document.file.path).is_file() and attachment.is_file()
    assert not any(Path(document.file.name).name in name for name in members)
    assert not any("note.pdf" in name or "verification" in name for name in members)
    # The operator is told, every time, that they must be backed up separately.
    assert "Not in it, deliberately: the private files" in output
    assert str(Path(settings.TRADEPOST_PRIVATE_ROOT).resolve()) in output


def test_private_files_inside_the_media_folder_are_still_left_out_and_kept(tmp_path, settings):
    """A misconfigured TRADEPOST_PRIVATE_ROOT under MEDIA_ROOT: the archive still leaves the
    documents out, and a restore, which empties the media folder, leaves them in place."""
    settings.TRADEPOST_PRIVATE_ROOT = Path(settings.MEDIA_ROOT) / "private"
    make_product()
    secret = write(Path(settings.TRADEPOST_PRIVATE_ROOT) / "verification/2026/12/licence.pdf")
    write(Path(settings.MEDIA_ROOT) / "products/photo.jpg", b"\xff\xd8\xffpicture")
    archive = tmp_path / "site.tar.gz"
    run_backup(archive)
    assert not any("private" in name or "licence" in name for name in names(archive))
    assert "media/products/photo.jpg" in names(archive)
    call_command("restore", str(archive), "--yes", stdout=StringIO(), stderr=StringIO())
    assert secret.is_file()
    assert (Path(settings.MEDIA_ROOT) / "products/photo.jpg").is_file()


def test_private_roots_name_both_kinds_of_private_files(settings, tmp_path):
    settings.TRADEPOST_PRIVATE_ROOT = tmp_path / "elsewhere"
    roots = backup.private_roots()
    assert (tmp_path / "elsewhere").resolve() in roots
    assert Path(PrivateAttachmentStorage().location).resolve() in roots


def test_by_default_the_private_root_is_beside_media_and_static_never_under_them():
    home = site_settings.HOME
    private = Path(site_settings.TRADEPOST_PRIVATE_ROOT).resolve()
    for public in (Path(site_settings.MEDIA_ROOT), Path(site_settings.STATIC_ROOT)):
        public = public.resolve()
        assert public != private and public not in private.parents
        assert private not in public.parents
    assert private.parent == Path(home).resolve()


def _patterns(resolver: URLResolver, prefix: str = ""):
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            yield from _patterns(entry, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry


def test_no_url_serves_files_from_the_private_root():
    """The only file-serving pattern serves MEDIA_ROOT, which the private root is not in."""
    private = Path(settings.TRADEPOST_PRIVATE_ROOT).resolve()
    served = [
        Path(entry.default_args["document_root"]).resolve()
        for _route, entry in _patterns(get_resolver())
        if "document_root" in entry.default_args
    ]
    assert served, "the media pattern was expected"
    for root in served:
        assert root != private and root not in private.parents and private not in root.parents


def test_the_media_address_cannot_reach_a_private_file(client, cast):
    document = submit_verification(cast.owner).documents.get()
    relative = Path(document.file.path).relative_to(Path(settings.TRADEPOST_PRIVATE_ROOT))
    for address in (
        f"/media/{relative}",
        f"/media/../private/{relative}",
        f"/media/%2e%2e/private/{relative}",
    ):
        answer = client.get(address)
        # Not found, or refused as a path leaving the media folder: never the file.
        assert answer.status_code in (400, 404), address
        assert b"%PDF" not in b"".join(getattr(answer, "streaming_content", [answer.content]))
