app_name = "sourcing"

urlpatterns: list = []
