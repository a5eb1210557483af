from django.urls import path

from tradepost.web.views import trust as views
from tradepost.web.views import trust_reports

app_name = "trust"

urlpatterns = [
    path("company/verification/", views.verification, name="verification"),
    path("company/verification/withdraw/", views.withdraw, name="verification_withdraw"),
    path("company/verification/documents/<int:document_id>/", views.document, name="document"),
    path("operator/verification/", views.queue, name="queue"),
    path("operator/verification/<int:verification_id>/approve/", views.approve, name="approve"),
    path("operator/verification/<int:verification_id>/reject/", views.reject, name="reject"),
    path("reports/new/", trust_reports.report_create, name="report_create"),
    path("operator/reports/", trust_reports.report_queue, name="reports"),
    path(
        "operator/reports/<int:report_id>/decide/",
        trust_reports.report_decide,
        name="report_decide",
    ),
    path("operator/moderation/", trust_reports.moderate, name="moderate"),
]
