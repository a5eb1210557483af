from django.urls import path

app_name = "companies"

urlpatterns: list = []
