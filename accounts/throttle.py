"""Brute-force protection: the login lockout and the registration throttle.

Logins (docs/security.md, "Brute-force protection"): django-axes counts failed logins
in the database and, once a limit is reached, refuses every further attempt, even
with the right password, until the cool-off has passed. The settings
(``pokersite/settings.py``) plug in what is here:

* :class:`LoginAttempts` (``AXES_HANDLER``): axes' database handler, with a limit per
  lockout parameter (``AXES_FAILURE_LIMIT`` per username,
  ``BRUTE_FORCE["LOGIN_FAILURES_PER_IP"]`` per client address) instead of axes' one
  limit for all, and a successful login forgetting only that user's own failures
  from that address.
* :func:`lockout_response` (``AXES_LOCKOUT_CALLABLE``): 429 with ``Retry-After``, the
  page ``registration/lockout.html`` saying until when, or JSON for API-like clients.
* :func:`client_ip` (``AXES_CLIENT_IP_CALLABLE``): the address both limits count.

Registrations: at most ``BRUTE_FORCE["REGISTRATIONS_PER_IP_PER_HOUR"]`` accounts per
client address per hour, counted in Django's cache (:func:`registration_wait`,
:func:`claim_registration`). The cache is only a counter here: when it is
unreachable (Redis down) registration stays open and a warning is logged at most
once a minute; it never turns into an error page.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import (
    get_client_username,
    get_cool_off,
    get_failure_limit,
    get_lockout_parameters,
)
from axes.models import AccessAttempt
from django.conf import settings
from django.core.cache import cache
from django.db.models import QuerySet, Sum
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.cache import add_never_cache_headers

log = logging.getLogger(__name__)

REGISTRATION_WINDOW = 3600  # seconds: the registration limit is per hour


# ------------------------------------------------------------------ client address


def client_ip(request: HttpRequest) -> str | None:
    """The client's address, as the login lockout and the registration throttle count it.

    ``REMOTE_ADDR``; with ``BRUTE_FORCE["TRUSTED_PROXY_COUNT"]`` = n > 0 (n proxies of
    ours in front, each appending the address it saw to ``X-Forwarded-For``), the n-th
    address from the right of that header: whatever stands further left came from
    the client and may be forged. An IPv6 address counts as its /64 (what one
    subscriber usually gets, so hopping within it gains nothing), an IPv4-mapped one
    as the IPv4 address. ``None`` when there is no valid address.
    """
    raw = request.META.get("REMOTE_ADDR") or ""
    proxies = int(settings.BRUTE_FORCE["TRUSTED_PROXY_COUNT"])
    if proxies > 0:
        hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        hops = [hop for hop in hops if hop]
        if len(hops) >= proxies:
            raw = hops[-proxies]
    try:
        address = ipaddress.ip_address(raw.strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False).network_address)
    return str(address)


# ------------------------------------------------------------------- login lockout


def _parameter_limit(parameter: Any, default: int) -> int:
    if parameter == "ip_address":
        return int(settings.BRUTE_FORCE["LOGIN_FAILURES_PER_IP"])
    return default  # "username" (and anything else): AXES_FAILURE_LIMIT


class LoginAttempts(AxesDatabaseHandler):
    """axes' database handler with one limit per lockout parameter.

    axes compares the largest failure count of any parameter with one limit. Here
    :meth:`get_failures` reports the failures *as measured against*
    ``AXES_FAILURE_LIMIT``: that limit minus the fewest attempts any parameter has
    left, so that axes locks exactly when one parameter reaches its own limit.
    """

    def _attempts_by_parameter(
        self, request: HttpRequest, credentials: dict[str, Any] | None
    ) -> Iterator[tuple[int, QuerySet[AccessAttempt]]]:
        """(limit, live attempts) per lockout parameter (axes keeps both in this order)."""
        default = get_failure_limit(request, credentials)
        parameters = get_lockout_parameters(request, credentials)
        attempts = self.get_user_attempts(request, credentials)
        for parameter, queryset in zip(parameters, attempts, strict=True):
            yield _parameter_limit(parameter, default), queryset

    def get_failures(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> int:
        limit = get_failure_limit(request, credentials)
        left = min(
            parameter_limit - (queryset.aggregate(n=Sum("failures_since_start"))["n"] or 0)
            for parameter_limit, queryset in self._attempts_by_parameter(request, credentials)
        )
        return limit - left

    def locked_until(
        self, request: HttpRequest, credentials: dict[str, Any] | None = None
    ) -> datetime | None:
        """When the lockout of this request ends (``None``: it is not locked out).

        An attempt row stops counting a cool-off after its last failure; for each
        parameter at its limit, the oldest rows must expire until it is below it.
        Refused attempts during a lockout are not recorded
        (``AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False``), so the time holds.
        """
        cool_off = get_cool_off(request)
        if cool_off is None:
            return None
        until: datetime | None = None
        for limit, queryset in self._attempts_by_parameter(request, credentials):
            rows = list(queryset.order_by("attempt_time")
                        .values_list("attempt_time", "failures_since_start"))
            total = sum(failures for _, failures in rows)
            for attempt_time, failures in rows:
                if total < limit:
                    break
                total -= failures
                end = attempt_time + cool_off
                until = end if until is None else max(until, end)
        return until

    def reset_user_attempts(
        self, request: HttpRequest, credentials: dict[str, Any] | None = None
    ) -> int:
        """After a successful login (``AXES_RESET_ON_SUCCESS``): forget that user's own
        failures from that address, nothing else.

        axes would delete every attempt matching *any* parameter, i.e. all failures
        from that address, whatever username they tried: anyone with an account could
        then clear the per-address count by logging in to it between guesses.
        """
        username = get_client_username(request, credentials)
        deleted, _ = AccessAttempt.objects.filter(
            username=username, ip_address=request.axes_ip_address  # type: ignore[attr-defined]
        ).delete()
        return deleted


def _wants_json(request: HttpRequest) -> bool:
    accept = request.headers.get("Accept", "")
    return (
        request.path.startswith("/api/")
        or request.headers.get("X-Requested-With") == "XMLHttpRequest"
        or ("application/json" in accept and "text/html" not in accept)
    )


def lockout_response(
    request: HttpRequest, original_response: Any = None, credentials: Any = None
) -> HttpResponse:
    """``AXES_LOCKOUT_CALLABLE``: a locked-out login attempt, answered with 429.

    A page saying until when (``registration/lockout.html``), or for API-like clients
    (``/api/``, ``X-Requested-With: XMLHttpRequest``, ``Accept: application/json``)
    the API's error format with code ``locked_out``. Both carry ``Retry-After``.

    The credentials are read from the request: axes 8.3.1's async middleware path
    (Daphne) passes them in place of ``original_response``.
    """
    if not isinstance(credentials, dict):
        credentials = getattr(request, "axes_credentials", None)
    AxesProxyHandler.update_request(request)  # a no-op after authenticate() did it
    now = timezone.now()
    handler = AxesProxyHandler.get_implementation()
    until = handler.locked_until(request, credentials) if isinstance(
        handler, LoginAttempts) else None
    if until is None or until <= now:  # e.g. a lock that ends this very second
        until = now + (get_cool_off(request) or timedelta(minutes=1))
    wait = max(1, math.ceil((until - now).total_seconds()))
    local = timezone.localtime(until)
    message = (
        "Too many failed log-in attempts for this account or from your address. "
        f"Logging in is blocked until {local:%H:%M} {local.tzname()} "
        f"(in {wait_text(wait)}); until then even the right password is refused."
    )
    response: HttpResponse
    if _wants_json(request):
        response = JsonResponse(
            {"error": {"code": "locked_out", "message": message,
                       "details": {"scope": "login", "wait_seconds": wait,
                                   "locked_until": until.isoformat()}}},
            status=429,
        )
    else:
        context = {"message": message, "locked_until": until, "wait": wait_text(wait)}
        response = render(request, "registration/lockout.html", context, status=429)
    response["Retry-After"] = str(wait)
    add_never_cache_headers(response)
    return response


def wait_text(seconds: int) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


# ----------------------------------------------------------- registration throttle


class _CacheDownWarning:
    """Logs that the cache is unreachable at most once a minute (per process)."""

    every = 60.0

    def __init__(self) -> None:
        self.last = -math.inf

    def __call__(self, exc: BaseException) -> None:
        now = time.monotonic()
        if now - self.last >= self.every:
            self.last = now
            log.warning("Registration throttle skipped: the cache is unreachable (%r); "
                        "registrations are allowed until it is back.", exc)


cache_down_warning = _CacheDownWarning()


def _registration_keys(request: HttpRequest) -> tuple[str, str]:
    address = client_ip(request) or "unknown"
    return f"registrations:{address}", f"registrations:{address}:since"


def _registration_limit() -> int:
    return int(settings.BRUTE_FORCE["REGISTRATIONS_PER_IP_PER_HOUR"])


def _seconds_left(since_key: str) -> int:
    since = cache.get(since_key)
    if not isinstance(since, int | float):
        return REGISTRATION_WINDOW
    return max(1, math.ceil(since + REGISTRATION_WINDOW - time.time()))


def registration_wait(request: HttpRequest) -> int:
    """Seconds until this client's address may register again; 0 if it may now.

    Only reads the count (a refused client costs no validation or hashing). 0 too
    when the limit is off (0) or the cache is unreachable (fail open).
    """
    limit = _registration_limit()
    if limit <= 0:
        return 0
    count_key, since_key = _registration_keys(request)
    try:
        if (cache.get(count_key) or 0) < limit:
            return 0
        return _seconds_left(since_key)
    except Exception as exc:  # any cache failure: allow, never a 500
        cache_down_warning(exc)
        return 0


def claim_registration(request: HttpRequest) -> int:
    """Counts one registration for this client's address, just before it is made.

    Returns 0 when it is within the limit (go ahead), else the seconds to wait; the
    count is one atomic increment, so concurrent sign-ups cannot overshoot. The hour
    starts with the first counted registration. Fails open like
    :func:`registration_wait`.
    """
    limit = _registration_limit()
    if limit <= 0:
        return 0
    count_key, since_key = _registration_keys(request)
    try:
        cache.add(since_key, time.time(), REGISTRATION_WINDOW)
        cache.add(count_key, 0, REGISTRATION_WINDOW)
        try:
            count = cache.incr(count_key)
        except ValueError:  # expired between add() and incr()
            cache.set(count_key, 1, REGISTRATION_WINDOW)
            count = 1
        return 0 if count <= limit else _seconds_left(since_key)
    except Exception as exc:  # any cache failure: allow, never a 500
        cache_down_warning(exc)
        return 0


def reset_registrations(address: str) -> None:
    """Forgets the registration count of one address (tests, or an admin in a shell)."""
    cache.delete_many([f"registrations:{address}", f"registrations:{address}:since"])
