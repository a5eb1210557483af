"""The nginx configuration shipped in deploy/nginx is accepted by Debian's nginx and, run in
front of a real app node, proxies to it: TLS, the redirect from plain HTTP, the forwarded
address and scheme (docs/deploy.md)."""

from __future__ import annotations

import http.client
import os
import re
import shutil
import socket
import ssl
import subprocess
import time
from pathlib import Path

import pytest

from tests.network import free_port

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "deploy" / "nginx" / "tradepost.conf"
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
OPENSSL = shutil.which("openssl")

pytestmark = pytest.mark.skipif(
    NGINX is None or OPENSSL is None,
    reason="nginx or openssl is not installed (make test installs Debian's nginx-light)",
)


def _configure(folder: Path, *, upstream: str, http_port: int, https_port: int) -> Path:
    """The shipped site configuration with this test's certificate, ports, folders and app
    node, inside a minimal main configuration that runs unprivileged in `folder`."""
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(
        [
            *(OPENSSL, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-keyout", str(key), "-out", str(cert), "-subj", "/CN=trade.example.com"),
        ],
        check=True,
        capture_output=True,
    )
    site = SHIPPED.read_text(encoding="utf-8")
    site = re.sub(r"ssl_certificate\s+\S+;", f"ssl_certificate {folder / 'cert.pem'};", site)
    site = re.sub(r"ssl_certificate_key\s+\S+;", f"ssl_certificate_key {folder / 'key.pem'};", site)
    site = re.sub(r"(?m)^\s*server 127\.0\.0\.1:\d+ .*\n", "", site)
    site = site.replace("keepalive 32;", f"server {upstream};\n    keepalive 32;")
    site = re.sub(r"listen (\[::\]:)?80;", f"listen 127.0.0.1:{http_port};", site)
    site = re.sub(r"listen (\[::\]:)?443 ssl", f"listen 127.0.0.1:{https_port} ssl", site)
    site = site.replace("/var/lib/tradepost/", f"{folder}/")
    # The IPv4 and IPv6 lines now name the same address: keep one.
    site = _dedupe_listens(site)
    (folder / "site.conf").write_text(site, encoding="utf-8")
    main = folder / "nginx.conf"
    # Run as root (as in CI), nginx's workers would be `nobody`, who cannot read the test's
    # private folder.
    user = "user root;\n" if os.geteuid() == 0 else ""
    main.write_text(
        f"{user}pid {folder}/nginx.pid;\nerror_log {folder}/error.log;\nevents {{}}\n"
        f"http {{\n  access_log off;\n  client_body_temp_path {folder}/body;\n"
        f"  proxy_temp_path {folder}/proxy;\n  include {folder}/site.conf;\n}}\n",
        encoding="utf-8",
    )
    return main


def _dedupe_listens(site: str) -> str:
    lines, seen = [], set()
    for line in site.splitlines():
        key = line.strip()
        if key.startswith("listen ") and key in seen:
            continue
        seen.add(key)
        lines.append(line)
    return "\n".join(lines) + "\n"


def test_debians_nginx_accepts_the_shipped_configuration(tmp_path):
    main = _configure(
        tmp_path, upstream="127.0.0.1:9", http_port=free_port(), https_port=free_port()
    )
    checked = subprocess.run([NGINX, "-t", "-c", str(main)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


@pytest.mark.django_db(transaction=True)
def test_nginx_in_front_of_an_app_node(tmp_path, live_server, settings):
    settings.TRADEPOST_HEALTH_NEEDS_WORKER = False  # the app node runs no worker here
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "trade.example.com"]
    http_port, https_port = free_port(), free_port()
    upstream = live_server.url.removeprefix("http://")
    main = _configure(tmp_path, upstream=upstream, http_port=http_port, https_port=https_port)
    server = subprocess.Popen(
        [NGINX, "-c", str(main), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", https_port), timeout=0.5).close()
                break
            except OSError:
                assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
                assert time.monotonic() < deadline, "nginx did not start"
                time.sleep(0.1)

        plain = http.client.HTTPConnection("127.0.0.1", http_port, timeout=5)
        plain.request("GET", "/en/?a=1", headers={"Host": "trade.example.com"})
        redirect = plain.getresponse()
        assert redirect.status == 301
        assert redirect.getheader("Location") == "https://trade.example.com/en/?a=1"

        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        secure = http.client.HTTPSConnection("127.0.0.1", https_port, timeout=10, context=context)
        secure.request("GET", "/healthz", headers={"Host": "trade.example.com"})
        answer = secure.getresponse()
        body = answer.read()
        assert answer.status == 200, body
        assert b'"status"' in body

        (tmp_path / "static").mkdir()
        (tmp_path / "static" / "app.abc123.css").write_text("body{}", encoding="utf-8")
        secure.request("GET", "/static/app.abc123.css", headers={"Host": "trade.example.com"})
        static = secure.getresponse()
        assert static.status == 200 and static.read() == b"body{}"
        assert "immutable" in (static.getheader("Cache-Control") or "")
    finally:
        server.terminate()
        server.wait(timeout=10)
