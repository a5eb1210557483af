"""Supplier and operator analytics: daily counters of product views and of the search words
that showed a company's listings, and the numbers of the supplier's and the operator's desks
(docs/adr/0018-desks-and-counters.md)."""
