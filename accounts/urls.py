"""Landing page, sign-up/log-in pages and the "My account" pages."""

from django.contrib.auth import views as auth_views
from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/register/", views.register, name="register"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),  # POST only
    path(
        "accounts/password/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "accounts/password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("account/", views.account, name="account"),
    path("account/players/add/", views.player_add, name="player_add"),
    path("account/players/<int:player_id>/rename/", views.player_rename, name="player_rename"),
    path("account/players/<int:player_id>/delete/", views.player_delete, name="player_delete"),
    path("account/bots/add/", views.bot_add, name="bot_add"),
    path(
        "account/bots/<int:player_id>/token/",
        views.bot_token_regenerate,
        name="bot_token_regenerate",
    ),
    path("account/tokens/add/", views.personal_token_add, name="personal_token_add"),
    path("account/tokens/<int:token_id>/revoke/", views.personal_token_revoke,
         name="personal_token_revoke"),
    path("account/house-bots/", views.house_bots, name="house_bots"),
    path("account/house-bots/<int:house_bot_id>/", views.house_bot_edit,
         name="house_bot_edit"),
    path("account/house-bots/<int:house_bot_id>/delete/", views.house_bot_delete,
         name="house_bot_delete"),
    path("account/delete/", views.account_delete, name="account_delete"),
]
