"""Screening of listings at publish time: the operators' list of banned terms, matched after
the search analysis's folding (docs/adr/0023-banned-terms.md).

The app sits under the catalogue: it knows texts, not products. The catalogue hands it a
listing's texts when the listing is published (`catalog.listing_screening`) and holds the
listing for review when a term matches; the operators' review queue approves or rejects it there.
"""
