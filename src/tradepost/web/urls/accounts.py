from django.urls import path

from tradepost.web.views import accounts as views

app_name = "accounts"

urlpatterns = [
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", views.LogoutView.as_view(), name="logout"),
    path("signup/", views.signup, name="signup"),
    path("dashboard/", views.dashboard, name="dashboard"),
    path("settings/", views.account_settings, name="settings"),
    path("settings/password/", views.PasswordChangeView.as_view(), name="password_change"),
    path("settings/email/", views.change_email, name="change_email"),
    path("email/change/<str:token>/", views.change_email_confirm, name="change_email_confirm"),
    path("email/verify/resend/", views.resend_verification, name="resend_verification"),
    path("email/verify/<str:token>/", views.verify_email, name="verify_email"),
    path("password-reset/", views.PasswordResetView.as_view(), name="password_reset"),
    path("password-reset/sent/", views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "password-reset/<uidb64>/<token>/",
        views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password-reset/complete/",
        views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("tokens/", views.api_tokens, name="tokens"),
    path("tokens/<int:token_id>/revoke/", views.api_token_revoke, name="token_revoke"),
]
