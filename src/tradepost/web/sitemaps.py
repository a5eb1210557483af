SITEMAPS: dict = {}
