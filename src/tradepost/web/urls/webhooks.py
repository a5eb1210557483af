from django.urls import path

from tradepost.web.views import webhooks as views

app_name = "webhooks"

urlpatterns = [
    path("", views.endpoints, name="list"),
    path("<int:endpoint_id>/", views.endpoint_detail, name="detail"),
    path("<int:endpoint_id>/rotate/", views.endpoint_rotate, name="rotate"),
    path("<int:endpoint_id>/disable/", views.endpoint_disable, name="disable"),
    path("<int:endpoint_id>/enable/", views.endpoint_enable, name="enable"),
    path("<int:endpoint_id>/test/", views.endpoint_test, name="test"),
    path("<int:endpoint_id>/delete/", views.endpoint_delete, name="delete"),
    path(
        "<int:endpoint_id>/deliveries/<int:delivery_id>/redeliver/",
        views.delivery_redeliver,
        name="redeliver",
    ),
]
