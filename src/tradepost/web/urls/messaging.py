from django.urls import path

from tradepost.web.views import messaging as views

app_name = "messaging"

urlpatterns = [
    path("", views.inbox, name="inbox"),
    path("inquire/", views.inquiry_create, name="inquiry_create"),
    path("<int:conversation_id>/", views.detail, name="detail"),
    path("<int:conversation_id>/show-our-name/", views.show_buyer, name="show_buyer"),
    path(
        "<int:conversation_id>/attachments/<int:attachment_id>/",
        views.attachment,
        name="attachment",
    ),
    path("notifications/", views.notifications, name="notifications"),
    path("notifications/read/", views.notifications_read_all, name="notifications_read_all"),
    path("notifications/email/", views.email_preference, name="email_preference"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
