"""Money: the operator's exchange-rate table and every conversion between currencies.

One source of rates for the search index (price filters, buckets and sorts in US dollars) and
for the quotation comparison; listings keep their own currency and are shown in it.
"""
