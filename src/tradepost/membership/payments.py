"""How an invoice is paid: a small interface, and the one way offered today, a bank transfer
with a reference that an operator confirms when the money arrives (docs/operations.md,
"Membership and invoices", says how to add a card processor).

A provider says what the invoice shows the payer (`instructions`) and makes the reference the
payment is matched by. The confirmation itself is `services.invoice_confirm_payment`, which a
provider's own callback (a card processor's webhook) would call in the same way an operator
does from the payments page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from django.conf import settings
from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class PaymentInstructions:
    """What the invoice page prints under "How to pay": (label, value) rows."""

    title: Any
    rows: list[tuple[Any, str]]


class PaymentProvider(Protocol):
    """One way to pay an invoice."""

    #: Stored on the invoice (`Invoice.payment_method`).
    code: str

    def reference(self, *, number_body: str) -> str:
        """The reference the payer quotes, made from the invoice's number."""
        ...

    def instructions(self, *, reference: str) -> PaymentInstructions:
        """What the payer needs to pay."""
        ...


def creditor_reference(body: str) -> str:
    """An ISO 11649 creditor reference ("RF" + two check digits + `body`), the structured
    reference European banks carry unchanged: letters count as 10-35, the check makes the
    number mod 97 equal 1."""
    text = "".join(ch for ch in body.upper() if ch.isalnum())
    digits = "".join(str(int(ch, 36)) for ch in text + "RF00")
    return f"RF{98 - int(digits) % 97:02d}{text}"


def is_creditor_reference(reference: str) -> bool:
    text = reference.replace(" ", "").upper()
    if not text.startswith("RF") or len(text) < 5 or not text.isalnum():
        return False
    digits = "".join(str(int(ch, 36)) for ch in text[4:] + text[:4])
    return int(digits) % 97 == 1


class BankTransfer:
    """Payment by bank transfer to the operator's account (settings TRADEPOST_SELLER_BANK_*),
    quoting the invoice's creditor reference; an operator confirms it on the payments page."""

    code = "bank_transfer"

    def reference(self, *, number_body: str) -> str:
        return creditor_reference(number_body)

    def instructions(self, *, reference: str) -> PaymentInstructions:
        rows: list[tuple[Any, str]] = [
            (_("Account holder"), settings.TRADEPOST_SELLER_BANK_ACCOUNT_NAME),
            (_("Bank"), settings.TRADEPOST_SELLER_BANK_NAME),
            (_("IBAN or account number"), settings.TRADEPOST_SELLER_BANK_ACCOUNT),
            (_("BIC / SWIFT"), settings.TRADEPOST_SELLER_BANK_BIC),
            (_("Reference"), reference),
        ]
        return PaymentInstructions(
            title=_("Bank transfer"), rows=[(label, value) for label, value in rows if value]
        )


#: The ways to pay, by code. Only real ones: a card processor is added here with its module.
PROVIDERS: dict[str, PaymentProvider] = {BankTransfer.code: BankTransfer()}
DEFAULT_PROVIDER = BankTransfer.code


def provider(code: str) -> PaymentProvider:
    return PROVIDERS[code]
