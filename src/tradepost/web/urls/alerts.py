"""The trade-alert pages, mounted at /<lang>/dashboard/alerts/. `alerts:unsubscribe` (kwarg
`token`, from `alerts.services.unsubscribe_token`) is the link of the alert emails."""

from django.urls import path

from tradepost.web.views import alerts as views

app_name = "alerts"

urlpatterns = [
    path("", views.alert_list, name="list"),
    path("create/", views.alert_create, name="create"),
    path("<int:alert_id>/", views.alert_detail, name="detail"),
    path("<int:alert_id>/update/", views.alert_update, name="update"),
    path("<int:alert_id>/pause/", views.alert_pause, name="pause"),
    path("<int:alert_id>/resume/", views.alert_resume, name="resume"),
    path("<int:alert_id>/delete/", views.alert_delete, name="delete"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
