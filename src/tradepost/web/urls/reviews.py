"""Reviews, mounted at the language root: /<lang>/companies/<slug>/reviews/ (public),
/<lang>/requests/quotations/<id>/review/ (the buyer's form), /<lang>/reviews/<id>/reply/ and
the operators' /hide/ and /restore/."""

from django.urls import path

from tradepost.web.views import reviews as views

app_name = "reviews"

urlpatterns = [
    path("companies/<slug:slug>/reviews/", views.company_reviews, name="company_reviews"),
    path("requests/quotations/<int:quotation_id>/review/", views.review_create, name="create"),
    path("reviews/<int:review_id>/reply/", views.review_reply, name="reply"),
    path("reviews/<int:review_id>/hide/", views.review_hide, name="hide"),
    path("reviews/<int:review_id>/restore/", views.review_restore, name="restore"),
]
