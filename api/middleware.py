"""The API's error format also for what Django answers before or around DRF.

DRF's exception handler (:mod:`api.errors`) renders what happens inside an API view.
Some refusals come from Django itself: a body over ``DATA_UPLOAD_MAX_MEMORY_SIZE``
(``RequestDataTooBig``, Django's HTML "400 Bad Request"), a URL outside the API's URL
map (``/api/v2/``), an uncaught error (in DEBUG the HTML traceback page).
:class:`ApiErrorMiddleware` gives every ``/api/`` path the API's JSON error shape
``{"error": {"code", "message", "details"}}`` with a stable code (docs/api.md,
"Errors"; docs/security.md, "Input bounds"):

* a declared ``Content-Length`` over the limit is refused before anything reads the
  body: ``413 request_too_large`` (also when Django or the parser finds it later);
* a NUL character in the URL's path or query (``%00``), which no database text can
  hold (PostgreSQL refuses it), is ``400 invalid_text`` (the lobby's own pages drop
  NUL from their filters themselves);
* any other non-JSON error response (status >= 400) is replaced by the JSON shape
  with the code of its status; a 500 says nothing about the error (it is logged).

It sits right after ``CommonMiddleware`` and works for sync and async views alike.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.deprecation import MiddlewareMixin

from .errors import error_body

API_PREFIX = "/api/"
# The code and sentence of an error response the API did not write itself.
STATUS_CODES: dict[int, tuple[str, str]] = {
    400: ("bad_request", "The request is not valid."),
    401: ("not_authenticated", "Log in, or send “Authorization: Bearer <bot token>”."),
    403: ("permission_denied", "You may not do this."),
    404: ("not_found", "Not found."),
    405: ("method_not_allowed", "This method is not allowed here."),
    413: ("request_too_large", "The request body is too large."),
    415: ("unsupported_media_type", "Send JSON (Content-Type: application/json)."),
    429: ("throttled", "Too many requests; try again later."),
}
SERVER_ERROR = ("server_error", "The server failed to answer; the error was logged.")
KEPT_HEADERS = ("Allow", "Retry-After", "WWW-Authenticate")


def _is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith(API_PREFIX)


def too_large(limit: int) -> JsonResponse:
    return JsonResponse(error_body("request_too_large",
                                   f"A request body is at most {limit} bytes.",
                                   {"max_bytes": limit}), status=413)


def _declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


class ApiErrorMiddleware(MiddlewareMixin):
    """Every error under ``/api/`` in the API's JSON shape (see the module)."""

    def process_request(self, request: HttpRequest) -> HttpResponse | None:
        if not _is_api(request):
            return None
        if "\x00" in request.path_info or "%00" in request.META.get("QUERY_STRING", ""):
            return JsonResponse(error_body(
                "invalid_text", "The URL may not contain NUL characters (%00)."), status=400)
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if limit is not None and _declared_length(request) > limit:
            return too_large(limit)
        return None

    def process_exception(self, request: HttpRequest,
                          exception: Exception) -> HttpResponse | None:
        if not _is_api(request):
            return None
        if isinstance(exception, RequestDataTooBig):
            return too_large(settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0)
        if isinstance(exception, SuspiciousOperation):  # e.g. too many fields
            return JsonResponse(error_body("bad_request", "The request is not valid."),
                                status=400)
        return None  # Django answers (500), then process_response gives it the shape

    def process_response(self, request: HttpRequest, response: Any) -> Any:
        if (response.status_code < 400 or not _is_api(request)
                or response.get("Content-Type", "").startswith("application/json")):
            return response
        status = response.status_code
        code, message = STATUS_CODES.get(status) or (
            SERVER_ERROR if status >= 500 else ("error", "The request was refused."))
        replaced = JsonResponse(error_body(code, message), status=status)
        for header in KEPT_HEADERS:
            if header in response:
                replaced[header] = response[header]
        return replaced
