"""PDF documents drawn from HTML with WeasyPrint, without reaching the network.

WeasyPrint fetches what a page links to (stylesheets, images, fonts of `@font-face`) through
a URL fetcher; its own would open any `http:`, `https:`, `ftp:` or `file:` address, so text a
user wrote into a page (a company's address) could make the server fetch an internal address
or read a file. `StaticFilesOnly` serves the site's own static files (addresses under
`STATIC_URL` on `SITE_URL`, read from the disk through the static-file finders or
`STATIC_ROOT`) and refuses every other address: nothing is fetched from anywhere else.

Fonts come from the system through fontconfig: Debian's `fonts-noto-cjk` draws Chinese
(`scripts/install-system-libs.sh` installs it with Pango).
"""

from __future__ import annotations

import mimetypes
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from django.conf import settings
from django.contrib.staticfiles import finders
from django.core.exceptions import SuspiciousFileOperation
from weasyprint import HTML, Document
from weasyprint.urls import URLFetcher, URLFetcherResponse


class ResourceRefused(ValueError):
    """A PDF asked for an address that is not one of the site's static files."""


def site_base_url() -> str:
    """The address relative links of a PDF's HTML are resolved against (the site's)."""
    return f"{settings.SITE_URL}/"


def _static_path(relative: str) -> Path | None:
    """The file of the static path `relative` (tradepost/site.css), or None."""
    parts = PurePosixPath(relative).parts
    if not relative or relative.startswith("/") or any(p in ("..", ".", "") for p in parts):
        return None
    try:
        found = finders.find(relative)
    except SuspiciousFileOperation:
        return None
    if isinstance(found, str) and Path(found).is_file():
        return Path(found)
    root = Path(settings.STATIC_ROOT).resolve()
    collected = (root / relative).resolve()
    if root in collected.parents and collected.is_file():
        return collected
    return None


class StaticFilesOnly(URLFetcher):  # type: ignore[misc]
    """WeasyPrint's URL fetcher for the site's PDFs: the site's static files, nothing else."""

    def __init__(self, base_url: str | None = None) -> None:
        super().__init__(allowed_protocols=(), fail_on_errors=False)
        self.prefix = urljoin(base_url or site_base_url(), settings.STATIC_URL)

    def fetch(self, url: str, headers: Any = None) -> URLFetcherResponse:
        parts = urlsplit(url)
        prefix = urlsplit(self.prefix)
        if (
            (parts.scheme, parts.netloc) != (prefix.scheme, prefix.netloc)
            or not parts.path.startswith(prefix.path)
            or parts.query
        ):
            raise ResourceRefused(f"Only the site's static files are fetched, not {url!r}.")
        path = _static_path(unquote(parts.path[len(prefix.path) :]))
        if path is None:
            raise ResourceRefused(f"No static file at {url!r}.")
        content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return URLFetcherResponse(url, path.read_bytes(), {"Content-Type": content_type})


def render_pdf(html: str, *, base_url: str | None = None) -> Document:
    """Lay `html` out into pages (before `write_pdf()`; a test reads the pages and fonts)."""
    base = base_url or site_base_url()
    return HTML(string=html, base_url=base, url_fetcher=StaticFilesOnly(base)).render()
