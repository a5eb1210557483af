"""What the tests' SMTP server (aiosmtpd on 127.0.0.1, the `smtp_server` fixture of
tests/conftest.py) keeps of each message it accepts."""

from __future__ import annotations

import email
import email.policy
import threading
import time
from dataclasses import dataclass
from email.header import decode_header, make_header
from email.message import EmailMessage


@dataclass
class Received:
    sender: str
    recipients: list[str]
    message: EmailMessage
    raw: bytes

    @property
    def subject(self) -> str:
        """The subject as a mail client shows it (RFC 2047 words decoded, folding removed);
        the stdlib's new parser keeps the space of a header folded right after "Subject:"."""
        raw = email.message_from_bytes(self.raw)["Subject"]
        return str(make_header(decode_header(raw)))

    @property
    def text(self) -> str:
        part = self.message.get_body(preferencelist=("plain",))
        assert part is not None
        return part.get_content()

    @property
    def html(self) -> str:
        part = self.message.get_body(preferencelist=("html",))
        assert part is not None
        return part.get_content()


class CollectingHandler:
    """Keeps every message the server accepts."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self._lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self._lock:
            self.received.append(
                Received(
                    envelope.mail_from,
                    list(envelope.rcpt_tos),
                    parsed,  # type: ignore[arg-type]
                    envelope.original_content,
                )
            )
        return "250 Message accepted for delivery"

    def messages(self) -> list[Received]:
        with self._lock:
            return list(self.received)

    def clear(self) -> None:
        with self._lock:
            self.received.clear()


def wait_for(handler: CollectingHandler, count: int) -> list[Received]:
    """The SMTP transaction is over when send() returns, but be lenient with the server thread."""
    deadline = time.monotonic() + 5
    while len(handler.messages()) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    return handler.messages()
