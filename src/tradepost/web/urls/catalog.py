"""The public catalogue, mounted at the language root (/en/categories/, /zh-hans/products/...)."""

from django.urls import path

from tradepost.web.views import catalog

app_name = "catalog"

urlpatterns = [
    path("categories/", catalog.category_list, name="category_list"),
    path("categories/<slug:slug>/", catalog.category_detail, name="category_detail"),
    path("products/<int:pk>/", catalog.product_redirect, name="product_redirect"),
    path("products/<int:pk>-<str:slug>/", catalog.product_detail, name="product_detail"),
    path("companies/", catalog.company_directory, name="company_directory"),
    path("companies/<slug:slug>/", catalog.company_detail, name="company_detail"),
]
