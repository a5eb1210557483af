"""One HTTP POST to a company's endpoint, guarded against server-side request forgery.

A company chooses the address, so the server must not become its way into the server's own
network (a metadata service, a database port, an admin page on localhost). Every connection
is made by `GuardedBackend`, below the HTTP client, so nothing reaches a socket unchecked:

- the host name is resolved once, and *every* address it resolves to is checked: one
  private, loopback, link-local, multicast, reserved or otherwise not global address refuses
  the delivery (unless `TRADEPOST_WEBHOOKS_ALLOW_PRIVATE`);
- the connection goes to the checked address itself, not to the name, so a DNS answer that
  changes between the check and the connection (DNS rebinding) changes nothing; TLS still
  names and verifies the host of the URL;
- redirects are not followed (a 3xx is a failed attempt), no proxy from the environment is
  used;
- the whole request (connect, send, answer) has one deadline, besides the short connect
  timeout, and at most `TRADEPOST_WEBHOOKS_RESPONSE_MAX_BYTES` of the answer are read.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import ssl
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import httpcore
import httpx
from django.conf import settings

from tradepost.webhooks.models import ERROR_MAX_LENGTH

USER_AGENT = "Tradepost-Webhooks/1"
#: Characters of an answer's body kept with a failed attempt.
SNIPPET_LENGTH = 200

#: The resolver (tests replace it to point a made-up name somewhere).
getaddrinfo = socket.getaddrinfo


class UnsafeAddress(httpcore.ConnectError):
    """The host resolves to an address deliveries may not go to."""


IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
#: The well-known NAT64 prefix: an IPv4 address is carried in its last 32 bits.
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def is_public_address(address: IPAddress) -> bool:
    """Whether `address` is a global unicast address (an IPv4 address mapped or embedded in
    IPv6 is judged as itself)."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and address in NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None:
            return is_public_address(embedded)
        if address.teredo is not None:
            return False
    return bool(
        address.is_global
        and not address.is_private
        and not address.is_loopback
        and not address.is_link_local
        and not address.is_multicast
        and not address.is_reserved
        and not address.is_unspecified
    )


#: A host written as the C library reads an IPv4 address in its shorter forms: one number
#: ("2130706433"), hexadecimal or octal parts ("0x7f000001", "0177.1"), fewer than four parts
#: ("127.1"). A connection resolves them to that address without asking any DNS.
_NUMERIC_HOST = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]+)){0,3}\.?", re.I)


def parse_address(text: str) -> IPAddress | None:
    """The IP address `text` is (an IPv6 zone dropped; the short and numeric IPv4 forms read
    as a connection reads them), or None for a host name."""
    bare = text.strip("[]").split("%", 1)[0]
    try:
        return ipaddress.ip_address(bare)
    except ValueError:
        pass
    if _NUMERIC_HOST.fullmatch(bare):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(bare.rstrip(".")))
        except OSError:
            return None
    return None


def checked_addresses(host: str, port: int, *, allow_private: bool) -> list[str]:
    """The addresses of `host` a delivery may connect to, in the resolver's order; raises
    UnsafeAddress when any of them is not public (and private ones are not allowed), and
    ConnectError when the name does not resolve."""
    literal = parse_address(host)
    if literal is not None:
        addresses = [literal]
    else:
        try:
            found = getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError, OSError) as exc:
            raise httpcore.ConnectError(f"cannot resolve {host}: {exc}") from exc
        addresses = []
        for *_rest, sockaddr in found:
            address = parse_address(str(sockaddr[0]))
            if address is not None and address not in addresses:
                addresses.append(address)
        if not addresses:
            raise httpcore.ConnectError(f"cannot resolve {host}")
    if not allow_private:
        for address in addresses:
            if not is_public_address(address):
                raise UnsafeAddress(
                    f"refused: {host} resolves to {address}, which is not a public address"
                )
    return [str(address) for address in addresses]


class DeadlineStream(httpcore.NetworkStream):
    """A connection whose every read and write ends by the request's deadline."""

    def __init__(self, inner: httpcore.NetworkStream, deadline: float) -> None:
        self._inner = inner
        self._deadline = deadline

    def _left(self, timeout: float | None) -> float:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise httpcore.ReadTimeout("the request took longer than its deadline")
        return left if timeout is None else min(timeout, left)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, self._left(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, self._left(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        secured = self._inner.start_tls(ssl_context, server_hostname, self._left(timeout))
        return DeadlineStream(secured, self._deadline)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class GuardedBackend(httpcore.NetworkBackend):
    """Opens the connections of one delivery: to checked addresses only, by a deadline."""

    def __init__(self, *, allow_private: bool, connect_timeout: float, deadline: float) -> None:
        self._inner = httpcore.SyncBackend()
        self._allow_private = allow_private
        self._connect_timeout = connect_timeout
        self._deadline = deadline
        self.connected_to: str | None = None

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        addresses = checked_addresses(host, port, allow_private=self._allow_private)
        failure: Exception | None = None
        for address in addresses:
            left = self._deadline - time.monotonic()
            if left <= 0:
                raise httpcore.ConnectTimeout("the request took longer than its deadline")
            try:
                stream = self._inner.connect_tcp(
                    address,
                    port,
                    timeout=min(self._connect_timeout, left),
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
                continue
            self.connected_to = address
            return DeadlineStream(stream, self._deadline)
        assert failure is not None
        raise failure

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("unix sockets are not allowed")


class _ResponseStream(httpx.SyncByteStream):
    def __init__(self, stream: Iterable[bytes]) -> None:
        self._stream = stream

    def __iter__(self) -> Iterator[bytes]:
        yield from self._stream

    def close(self) -> None:
        close = getattr(self._stream, "close", None)
        if close is not None:
            close()


class GuardedTransport(httpx.BaseTransport):
    """httpx's transport over a connection pool of one, whose connections `backend` opens."""

    def __init__(self, backend: GuardedBackend) -> None:
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=1,
            max_keepalive_connections=0,
            network_backend=backend,
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        assert isinstance(request.stream, httpx.SyncByteStream)
        answer = self._pool.handle_request(
            httpcore.Request(
                method=request.method,
                url=httpcore.URL(
                    scheme=request.url.raw_scheme,
                    host=request.url.raw_host,
                    port=request.url.port,
                    target=request.url.raw_path,
                ),
                headers=request.headers.raw,
                content=request.stream,
                extensions=request.extensions,
            )
        )
        assert isinstance(answer.stream, Iterable)
        return httpx.Response(
            status_code=answer.status,
            headers=answer.headers,
            stream=_ResponseStream(answer.stream),
            extensions=answer.extensions,
        )

    def close(self) -> None:
        self._pool.close()


@dataclass(frozen=True)
class Outcome:
    """What one attempt got: a status code (None when no answer came), how long it took
    (milliseconds, until the answer was read), and what went wrong ("" when it succeeded)."""

    status: int | None
    elapsed_ms: int
    error: str
    connected_to: str | None = None

    @property
    def succeeded(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def _describe(exc: BaseException) -> str:
    if isinstance(exc, UnsafeAddress):
        return str(exc)
    if isinstance(exc, httpcore.TimeoutException | httpx.TimeoutException):
        return f"timed out: {exc}" if str(exc) else "timed out"
    return f"{type(exc).__name__}: {exc}"


def post(url: str, *, body: bytes, headers: dict[str, str]) -> Outcome:
    """POST `body` to `url` (the guards above apply) and read at most the configured bytes
    of the answer."""
    connect_timeout = float(settings.TRADEPOST_WEBHOOKS_CONNECT_TIMEOUT)
    total = float(settings.TRADEPOST_WEBHOOKS_TIMEOUT)
    limit = int(settings.TRADEPOST_WEBHOOKS_RESPONSE_MAX_BYTES)
    started = time.monotonic()
    backend = GuardedBackend(
        allow_private=bool(settings.TRADEPOST_WEBHOOKS_ALLOW_PRIVATE),
        connect_timeout=connect_timeout,
        deadline=started + total,
    )
    timeout = httpx.Timeout(total, connect=connect_timeout)

    def elapsed() -> int:
        return int((time.monotonic() - started) * 1000)

    try:
        with (
            httpx.Client(
                transport=GuardedTransport(backend),
                timeout=timeout,
                follow_redirects=False,
                trust_env=False,
            ) as client,
            client.stream(
                "POST", url, content=body, headers={"User-Agent": USER_AGENT, **headers}
            ) as answer,
        ):
            received = bytearray()
            for chunk in answer.iter_raw():
                received += chunk
                if len(received) >= limit:
                    break
            status = answer.status_code
            error = ""
            if not 200 <= status < 300:
                error = f"HTTP {status}"
                if 300 <= status < 400:
                    error += f": redirect to {answer.headers.get('location', '')!r} not followed"
                elif received and "content-encoding" not in answer.headers:
                    snippet = " ".join(
                        bytes(received[: SNIPPET_LENGTH * 4]).decode("utf-8", "replace").split()
                    )
                    error += f": {snippet[:SNIPPET_LENGTH]}"
            return Outcome(status, elapsed(), error[:ERROR_MAX_LENGTH], backend.connected_to)
    except (httpx.HTTPError, httpcore.TimeoutException, httpcore.NetworkError) as exc:
        return Outcome(None, elapsed(), _describe(exc)[:ERROR_MAX_LENGTH], backend.connected_to)
    except (httpcore.ProtocolError, httpx.InvalidURL, ssl.SSLError, OSError, ValueError) as exc:
        return Outcome(None, elapsed(), _describe(exc)[:ERROR_MAX_LENGTH], backend.connected_to)
