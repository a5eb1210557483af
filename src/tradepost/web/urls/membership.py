from django.urls import path

from tradepost.web.views import membership as views
from tradepost.web.views import membership_analytics

app_name = "membership"

urlpatterns = [
    path("membership/", views.plans, name="plans"),
    path("dashboard/membership/", views.overview, name="overview"),
    path("dashboard/membership/plans/<int:plan_id>/", views.change, name="change"),
    path("dashboard/membership/cancel/", views.cancel, name="cancel"),
    path("dashboard/membership/billing/", views.billing, name="billing"),
    path("dashboard/membership/invoices/<int:invoice_id>/", views.invoice, name="invoice"),
    path(
        "dashboard/membership/invoices/<int:invoice_id>/pdf/",
        views.invoice_pdf,
        name="invoice_pdf",
    ),
    path("dashboard/operator/payments/", views.payments, name="payments"),
    path(
        "dashboard/operator/membership/",
        membership_analytics.analytics_page,
        name="analytics",
    ),
    path(
        "dashboard/operator/membership/<slug:table>.csv",
        membership_analytics.analytics_csv,
        name="analytics_csv",
    ),
    path(
        "dashboard/operator/payments/<int:invoice_id>/confirm/",
        views.payment_confirm,
        name="payment_confirm",
    ),
]
