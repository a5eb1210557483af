from django.urls import path

from tradepost.web.views import companies as views

app_name = "companies"

urlpatterns = [
    path("", views.index, name="index"),
    path("create/", views.create, name="create"),
    path("profile/", views.profile, name="profile"),
    path("logo/", views.logo, name="logo"),
    path("members/", views.members, name="members"),
    path("members/invite/", views.invite, name="invite"),
    path("members/leave/", views.leave, name="leave"),
    path("members/<int:membership_id>/remove/", views.member_remove, name="member_remove"),
    path("members/<int:membership_id>/role/", views.member_role, name="member_role"),
    path(
        "members/<int:membership_id>/make-owner/",
        views.member_make_owner,
        name="member_make_owner",
    ),
    path(
        "invitations/<int:invitation_id>/revoke/",
        views.invitation_revoke,
        name="invitation_revoke",
    ),
    path("invitations/<str:token>/", views.invitation_accept, name="invitation_accept"),
]
