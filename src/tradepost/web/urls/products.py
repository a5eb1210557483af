app_name = "products"

urlpatterns: list = []
