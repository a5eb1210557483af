"""Errors raised by the money services (a `core.errors` family)."""

from __future__ import annotations

from tradepost.core.errors import DomainError, ErrorCode, ErrorKind


class MoneyErrorCode(ErrorCode):
    """Why a change to the exchange-rate table was refused, and how a client treats it."""

    INVALID = "invalid", ErrorKind.INVALID


class MoneyError(DomainError):
    """A refused change to the exchange-rate table."""

    code: MoneyErrorCode
