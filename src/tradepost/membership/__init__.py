"""Membership: the operator's plans, each company's subscriptions and their renewals, invoices
numbered without gaps, the payment (a bank transfer an operator confirms), and the operator's
renewal analytics (`analytics`).

Listing stays free forever: a company without a paid plan is on the default plan (Free), and
no plan decides whether a company is listed or found (docs/adr/0021-membership-and-invoices.md).
"""
