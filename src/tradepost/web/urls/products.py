from django.urls import path

from tradepost.web.views import products as views
from tradepost.web.views import showcase

app_name = "products"

urlpatterns = [
    path("", views.product_list, name="list"),
    path("create/", views.product_create, name="create"),
    path("categories/", views.category_picker_options, name="category_options"),
    path(
        "categories/suggestions/",
        views.category_picker_suggestions,
        name="category_suggestions",
    ),
    # The paid showcase (ADR 0026): the company's choice of products for the sponsored block.
    path("showcase/", showcase.showcase_page, name="showcase"),
    path("showcase/add/", showcase.showcase_choose, name="showcase_add"),
    path("showcase/<int:pk>/remove/", showcase.showcase_remove_product, name="showcase_remove"),
    path("<int:pk>/update/", views.product_update, name="update"),
    path("<int:pk>/publish/", views.product_publish, name="publish"),
    path("<int:pk>/unpublish/", views.product_unpublish, name="unpublish"),
    path("<int:pk>/delete/", views.product_delete, name="delete"),
    path("<int:pk>/images/", views.product_image_add, name="image_add"),
    path("<int:pk>/images/reorder/", views.product_image_reorder, name="image_reorder"),
    path(
        "<int:pk>/images/<int:image_id>/delete/",
        views.product_image_remove,
        name="image_remove",
    ),
    path(
        "<int:pk>/translations/<str:language>/",
        views.product_translation,
        name="translation",
    ),
    path(
        "<int:pk>/translations/<str:language>/delete/",
        views.product_translation_remove,
        name="translation_remove",
    ),
]
