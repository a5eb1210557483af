from django.urls import path

from tradepost.web.views import sourcing as views
from tradepost.web.views import sourcing_matching

app_name = "sourcing"

urlpatterns = [
    path("", views.request_board, name="board"),
    path("create/", views.request_create, name="create"),
    path("mine/", views.my_requests, name="my_requests"),
    path("quotations/", views.my_quotations, name="my_quotations"),
    path("matching/", sourcing_matching.matching, name="matching"),
    path("<int:pk>/", views.request_detail, name="request_detail"),
    path("<int:pk>/update/", views.request_update, name="update"),
    path("<int:pk>/close/", views.request_close, name="close"),
    path("<int:pk>/quote/", views.quotation_submit, name="quote"),
    path("<int:pk>/compare/", views.compare, name="compare"),
    path("quotations/<int:pk>/shortlist/", views.quotation_shortlist, name="shortlist"),
    path("quotations/<int:pk>/decline/", views.quotation_decline, name="decline"),
    path("quotations/<int:pk>/award/", views.quotation_award, name="award"),
    path("quotations/<int:pk>/ask/", views.quotation_ask, name="ask"),
    path("<int:pk>/attachments/", views.request_attachment_add, name="request_attachment_add"),
    path(
        "quotations/<int:pk>/attachments/",
        views.quotation_attachment_add,
        name="quotation_attachment_add",
    ),
    path("attachments/<int:pk>/", views.attachment_download, name="attachment"),
    path("attachments/<int:pk>/delete/", views.attachment_remove, name="attachment_remove"),
]
