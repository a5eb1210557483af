from django.urls import path

from tradepost.web.views import screening as views

app_name = "screening"

urlpatterns = [
    path("operator/banned-terms/", views.terms, name="terms"),
    path("operator/banned-terms/bulk/", views.terms_bulk, name="terms_bulk"),
    path(
        "operator/banned-terms/<int:banned_term_id>/update/", views.term_update, name="term_update"
    ),
    path(
        "operator/banned-terms/<int:banned_term_id>/deactivate/",
        views.term_deactivate,
        name="term_deactivate",
    ),
    path(
        "operator/banned-terms/<int:banned_term_id>/activate/",
        views.term_activate,
        name="term_activate",
    ),
    path(
        "operator/banned-terms/<int:banned_term_id>/delete/", views.term_delete, name="term_delete"
    ),
    path("operator/held-listings/", views.held, name="held"),
    path(
        "operator/held-listings/<int:product_id>/approve/", views.held_approve, name="held_approve"
    ),
    path("operator/held-listings/<int:product_id>/reject/", views.held_reject, name="held_reject"),
]
