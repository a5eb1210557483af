"""Webhooks: a company's endpoints, the events recorded for them and their deliveries
(docs/webhooks.md, docs/adr/0028-webhooks.md)."""
