"""One error format for the whole API, with stable codes.

Every error response is ``{"error": {"code": ..., "message": ..., "details": {...}}}``.
:func:`exception_handler` (DRF's ``EXCEPTION_HANDLER``) renders DRF's own
exceptions, :class:`tables.errors.TableError` and
:class:`accounts.errors.AccountsError` in it; 429 adds ``details.scope`` and
``details.wait_seconds`` and a ``Retry-After`` header, as does 503 ``server_busy``
(``details.wait_seconds``).
"""

from __future__ import annotations

import math
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, HttpRequest, JsonResponse
from rest_framework import exceptions, status
from rest_framework.response import Response

from accounts.errors import AccountsError
from tables.errors import TableError

# TableError codes that are not "409 the table's state does not allow it".
TABLE_STATUS = {
    "table_not_found": 404, "hand_not_found": 404,
    "not_authenticated": 401,
    "not_allowed": 403, "not_your_player": 403, "not_your_seat": 403,
    "malformed_message": 400, "unknown_type": 400, "bad_action": 400, "bad_amount": 400,
    "bad_seat": 400, "bad_settings": 400, "bad_name": 400, "unexpected_amount": 400,
    "seat_required": 400, "rate_limited": 429, "invalid_text": 400,
    "server_busy": 503, "unavailable": 503,
}
ACCOUNTS_STATUS = {"not_allowed": 403, "invalid_name": 400, "invalid_amount": 400,
                   "invalid_text": 400}
# Field errors about text that cannot be stored (control characters, NUL, lone
# surrogates): the whole refusal is ``invalid_text`` when they are its only reason.
TEXT_CODES = {"invalid_text", "null_characters_not_allowed", "surrogate_characters_not_allowed"}

DRF_CODES = {
    exceptions.ParseError: "malformed_request",
    exceptions.AuthenticationFailed: "invalid_token",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.PermissionDenied: "permission_denied",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
    exceptions.ValidationError: "invalid_request",
}


class ApiError(exceptions.APIException):
    """An API refusal with our own stable code (e.g. ``idempotency_key_reused``)."""

    def __init__(self, code: str, message: str, status_code: int = 400,
                 details: dict[str, Any] | None = None) -> None:
        super().__init__(message, code)
        self.status_code = status_code
        self.code = code
        self.message = message
        self.details = details or {}


class ScopedThrottled(exceptions.Throttled):
    """429 that knows which limit was hit."""

    def __init__(self, wait: float | None, scope: str) -> None:
        super().__init__(wait)
        self.scope = scope


def error_body(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": details or {}}}


def request_too_large(limit: int) -> ApiError:
    """A body over ``DATA_UPLOAD_MAX_MEMORY_SIZE``: ``413 request_too_large``."""
    return ApiError("request_too_large", f"A request body is at most {limit} bytes.", 413,
                    {"max_bytes": limit})


def _codes(codes: Any) -> set[str]:
    """Every field error code of a ValidationError's ``get_codes()``, flattened."""
    if isinstance(codes, dict):
        return set().union(*(_codes(c) for c in codes.values())) if codes else set()
    if isinstance(codes, list | tuple):
        return set().union(*(_codes(c) for c in codes)) if codes else set()
    return {str(codes)}


def _message(detail: Any) -> str:
    if isinstance(detail, list | tuple) and detail:
        return _message(detail[0])
    if isinstance(detail, dict) and detail:
        return _message(next(iter(detail.values())))
    text = str(detail).strip()
    if text and text[-1] not in ".!?”":
        text += "."
    return text or "The request is not valid."


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's ``EXCEPTION_HANDLER``: every error in one format."""
    headers: dict[str, str] = {}
    if isinstance(exc, TableError):
        code, message, details = exc.code, exc.message, {}
        status_code = TABLE_STATUS.get(code, status.HTTP_409_CONFLICT)
        if exc.wait_seconds is not None:  # server_busy: when to try again
            details = {"wait_seconds": exc.wait_seconds}
            headers["Retry-After"] = str(exc.wait_seconds)
    elif isinstance(exc, AccountsError):
        code, message, details = exc.code, exc.message, {}
        status_code = ACCOUNTS_STATUS.get(code, status.HTTP_409_CONFLICT)
    elif isinstance(exc, ApiError):
        code, message, details, status_code = exc.code, exc.message, exc.details, exc.status_code
    elif isinstance(exc, Http404):
        code, message, details, status_code = "not_found", "Not found.", {}, 404
    elif isinstance(exc, DjangoPermissionDenied):
        code, message, details = "permission_denied", "You may not do this.", {}
        status_code = 403
    elif isinstance(exc, exceptions.APIException):
        status_code = exc.status_code
        code = next((c for kind, c in DRF_CODES.items() if isinstance(exc, kind)), "error")
        details = {}
        if isinstance(exc, exceptions.ValidationError):
            details = {"fields": exc.detail} if isinstance(exc.detail, dict) else {
                "errors": exc.detail}
            message = "The request is not valid: " + _message(exc.detail)
            found = _codes(exc.get_codes())
            if found and found <= TEXT_CODES:
                code = "invalid_text"
        elif isinstance(exc, exceptions.AuthenticationFailed):
            codes = exc.get_codes()
            code = codes if isinstance(codes, str) and codes != "authentication_failed" \
                else "invalid_token"
            message = _message(exc.detail)
        else:
            message = _message(exc.detail)
        if isinstance(exc, exceptions.PermissionDenied) and exc.get_codes() == "token_scope":
            code = "token_scope"  # accounts.authentication.TokenScopes
        if isinstance(exc, exceptions.Throttled):
            wait = max(1, math.ceil(exc.wait or 1))
            details = {"scope": getattr(exc, "scope", "default"), "wait_seconds": wait}
            message = f"Too many requests; try again in {wait} seconds."
            headers["Retry-After"] = str(wait)
        auth_header = getattr(exc, "auth_header", None)
        if auth_header:
            headers["WWW-Authenticate"] = auth_header
    else:
        return None
    if status_code == 401:
        view = context.get("view")
        request = context.get("request")
        if view is not None and request is not None:
            header = view.get_authenticate_header(request)
            if header:
                headers["WWW-Authenticate"] = header
    return Response(error_body(code, message, details), status=status_code, headers=headers)


def not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """Any unknown URL under /api/: 404 in the API's format."""
    return JsonResponse(error_body("not_found", f"There is no API endpoint {request.path}."),
                        status=404)
