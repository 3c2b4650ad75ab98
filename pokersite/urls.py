"""URL map of the whole site."""

from functools import cache

from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.urls import include, path
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe


@cache
def _favicon() -> bytes:
    return (settings.BASE_DIR / "static" / "favicon.ico").read_bytes()


@require_safe
@cache_control(max_age=86400, public=True)
def favicon(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico`` (browsers ask for it on every page); pages link
    ``static/favicon.svg`` as well."""
    return HttpResponse(_favicon(), content_type="image/x-icon")


urlpatterns = [
    path("favicon.ico", favicon, name="favicon"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("api.urls")),
    path("research/", include("research.urls")),
    path("", include("accounts.urls")),
    path("", include("lobby.urls")),
]
