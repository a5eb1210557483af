from ninja import NinjaAPI

api = NinjaAPI(title="Tradepost API", version="1", urls_namespace="api")
