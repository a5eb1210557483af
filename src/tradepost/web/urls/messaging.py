app_name = "messaging"

urlpatterns: list = []
