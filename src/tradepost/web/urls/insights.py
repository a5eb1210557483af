from django.urls import path

from tradepost.web.views import insights as views

app_name = "insights"

urlpatterns = [
    path("insights/", views.supplier_desk_page, name="supplier_desk"),
    path("operator/", views.operator_desk_page, name="operator_desk"),
]
