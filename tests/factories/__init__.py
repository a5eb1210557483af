"""factory_boy factories of the tests, one module per app (accounts, companies, catalog,
sourcing, messaging; images for uploads, search for the index), with thin `make_*` helpers
where tests read better with a function. Objects only services may make (requests,
quotations, conversations) are made through those services."""
