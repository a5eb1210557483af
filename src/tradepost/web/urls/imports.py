from django.urls import path

from tradepost.web.views import imports as views

app_name = "imports"

urlpatterns = [
    path("", views.imports_page, name="list"),
    path("template/", views.catalogue_template, name="template"),
    path("export/", views.catalogue_export, name="export"),
    path("<int:pk>/", views.import_detail, name="detail"),
    path("<int:pk>/status/", views.import_status, name="status"),
    path("<int:pk>/confirm/", views.import_confirm, name="confirm"),
    path("<int:pk>/recheck/", views.import_recheck, name="recheck"),
    path("<int:pk>/cancel/", views.import_cancel, name="cancel"),
    path("<int:pk>/rejected/", views.import_rejected, name="rejected"),
]
