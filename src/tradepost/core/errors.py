"""The one error family of every app's refusals (docs/adr/0017-one-error-family.md).

A service, selector or access helper that refuses raises its app's subclass of `DomainError`
(`ProductError`, `SourcingError`, `MessagingError`, `CompanyError`, `AccountError` and their
not-found classes). Each carries:

- `code`: a member of the app's `ErrorCode` enum, which declares once, beside the code, its
  `kind` (how any client treats it) and, where the kind's title says too little, a `title`;
- `message_dict`: the messages per field, `{field: [message, ...]}`, the ones about the
  request as a whole under `NON_FIELD` ("__all__"), every message already in the user's
  language (gettext when the error is raised);
- `message`: all of them in one line, for a flash message or a problem's `detail`;
- `extensions`: what else a client needs to act on the refusal, JSON-ready (RFC 9457
  extension members: a likely duplicate's id and page), empty for most.

An app's not-found class is `NotFound` specialised in two lines, `class XNotFound(XError,
NotFound)` naming its code in `not_found_code` (and, rarely, its own `default_message`): it is
both the app's error and Django's `Http404`, "No such object." unless a message is given.

The API maps the family once (`api/problems.py`, one exception handler in `api/urls.py`) and
the web pages once (`web/refusals.py`); nothing else translates these errors.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any, ClassVar, Self, overload

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.http import Http404
from django.utils.translation import gettext_lazy

#: The key of the messages about the request as a whole (Django's, so forms read it alike).
NON_FIELD = NON_FIELD_ERRORS


class ErrorKind(StrEnum):
    """How any client should treat a refusal. The API answers each kind with one status."""

    INVALID = "invalid"  # fix the named fields and try again (422)
    NOT_FOUND = "not_found"  # no such object, or not one this user may see: alike (404)
    FORBIDDEN = "forbidden"  # this user may not do this at all (403)
    CONFLICT = "conflict"  # the object's state (or a quota) forbids it now (409)
    RATE_LIMITED = "rate_limited"  # too many in a short time; try again later (429)


#: The title of a refusal whose code declares none.
KIND_TITLES = {
    ErrorKind.INVALID: gettext_lazy("The request has invalid fields"),
    ErrorKind.NOT_FOUND: gettext_lazy("Not found"),
    ErrorKind.FORBIDDEN: gettext_lazy("Not allowed"),
    ErrorKind.CONFLICT: gettext_lazy("Not possible in this state"),
    ErrorKind.RATE_LIMITED: gettext_lazy("Too many requests"),
}


class ErrorCode(StrEnum):
    """An app's error codes: each member is `NAME = "code", ErrorKind.X` or, with a title of
    its own, `NAME = "code", ErrorKind.X, gettext_lazy("Title")`. The value is the code alone."""

    kind: ErrorKind
    title: Any  # a lazy translation, or None for the kind's title

    def __new__(cls, value: str, kind: ErrorKind, title: Any = None) -> Self:
        member = str.__new__(cls, value)
        member._value_ = value
        member.kind = kind
        member.title = title
        return member


class DomainError(Exception):
    """A refusal of one of the apps: `code`, `kind`, `title`, `message_dict` and `message`.

    `message` is one translated message (about `field`, or the request as a whole when no
    field is named) or a mapping of fields to their messages.
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str | Mapping[str, str | Iterable[str]],
        *,
        field: str | None = None,
        extensions: Mapping[str, Any] | None = None,
    ) -> None:
        if isinstance(message, Mapping):
            self.message_dict = {
                name: [str(text)] if isinstance(text, str) else [str(item) for item in text]
                for name, text in message.items()
            }
        else:
            self.message_dict = {field or NON_FIELD: [str(message)]}
        self.code = code
        self.extensions = dict(extensions or {})
        super().__init__(self.message)

    @classmethod
    def from_validation_error(
        cls, code: ErrorCode, error: ValidationError, *, rename: Mapping[str, str] | None = None
    ) -> Self:
        """The refusal holding the messages of a Django `ValidationError` (`full_clean()`,
        a validator), fields renamed from the model's names to the service's arguments."""
        if hasattr(error, "error_dict"):
            fields = {
                (rename or {}).get(name, name): texts for name, texts in error.message_dict.items()
            }
            return cls(code, fields)
        return cls(code, {NON_FIELD: error.messages})

    @classmethod
    def clean_model(
        cls,
        obj: Any,
        *,
        code: ErrorCode,
        rename: Mapping[str, str] | None = None,
        **options: Any,
    ) -> None:
        """`obj.full_clean(**options)`, its refusal raised as this error with `code`: the
        input was checked before, so this is the model's last word."""
        try:
            obj.full_clean(**options)
        except ValidationError as exc:
            raise cls.from_validation_error(code, exc, rename=rename) from None

    @property
    def kind(self) -> ErrorKind:
        return self.code.kind

    @property
    def title(self) -> str:
        """A short translated title: the code's own, else its kind's."""
        return str(self.code.title or KIND_TITLES[self.kind])

    @property
    def message(self) -> str:
        """Every message in one line."""
        return " ".join(text for texts in self.message_dict.values() for text in texts)

    @property
    def field_errors(self) -> dict[str, list[str]]:
        """The messages about named fields (those about the request as a whole left out)."""
        return {name: texts for name, texts in self.message_dict.items() if name != NON_FIELD}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code.value!r}, {self.message_dict!r})"


class NotFound(DomainError, Http404):
    """No such object, or not one this user may see: the two look the same (kind `not_found`,
    and Django's 404 where nothing catches it).

    Each app specialises it in two lines, no `__init__` of its own:
    `class ProductNotFound(ProductError, NotFound)` with
    `not_found_code = ProductErrorCode.NOT_FOUND`. Raised as `ProductNotFound()`, with a
    message `ProductNotFound(_("..."))`, or with another not-found code of the family
    `ReportNotFound(TrustErrorCode.TARGET_NOT_FOUND[, message])`.
    """

    #: The app's not-found code, raised when no other is given.
    not_found_code: ClassVar[ErrorCode]
    #: The message when none is given (a lazy translation, in the language at raise).
    default_message: ClassVar[Any] = gettext_lazy("No such object.")

    @overload
    def __init__(self, message: str | None = None, /) -> None: ...

    @overload
    def __init__(self, code: ErrorCode, /, message: str | None = None) -> None: ...

    def __init__(
        self, code_or_message: ErrorCode | str | None = None, /, message: str | None = None
    ) -> None:
        if isinstance(code_or_message, ErrorCode):
            code = code_or_message
        else:
            code, message = self.not_found_code, code_or_message
        super().__init__(code, message or str(self.default_message))
