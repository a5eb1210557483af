from django.urls import path

app_name = "catalog"

urlpatterns: list = []
