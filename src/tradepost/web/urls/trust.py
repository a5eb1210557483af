from django.urls import path

from tradepost.web.views import trust as views

app_name = "trust"

urlpatterns = [
    path("company/verification/", views.verification, name="verification"),
    path("company/verification/withdraw/", views.withdraw, name="verification_withdraw"),
    path("company/verification/documents/<int:document_id>/", views.document, name="document"),
    path("operator/verification/", views.queue, name="queue"),
    path("operator/verification/<int:verification_id>/approve/", views.approve, name="approve"),
    path("operator/verification/<int:verification_id>/reject/", views.reject, name="reject"),
]
