"""URL map of the whole site."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include("api.urls")),
    path("research/", include("research.urls")),
    path("", include("accounts.urls")),
    path("", include("lobby.urls")),
]
