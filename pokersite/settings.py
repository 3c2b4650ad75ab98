"""Settings for the poker server.

Everything is read from the environment, with embedded defaults that need no
external service: SQLite and the in-memory channel layer. Setting
``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` switches to the scale-out
configuration; ``DJANGO_DEBUG=0`` switches to production mode, which requires
``DJANGO_SECRET_KEY`` and ``DJANGO_ALLOWED_HOSTS``. See docs/deployment.md.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("POKER_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DJANGO_DEBUG", True)

_DEV_SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production-0123456789abcdef"
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", _DEV_SECRET_KEY if DEBUG else "")
if not SECRET_KEY:
    raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set when DJANGO_DEBUG=0")

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "axes",
    "accounts",
    "lobby",
    "tables",
    "api",
    "research",
    "acpc",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "api.middleware.ApiErrorMiddleware",  # /api/: every error as JSON (413 too large...)
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes asks: it answers locked-out login attempts.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "pokersite.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

ASGI_APPLICATION = "pokersite.asgi.application"

# Database: SQLite by default, PostgreSQL (or anything dj-database-url knows) from DATABASE_URL.
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}",
        conn_max_age=0,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    VAR_DIR.mkdir(parents=True, exist_ok=True)  # a fresh clone has no var/ yet
    # WAL lets readers proceed while one writer commits; the busy timeout makes
    # concurrent writers wait instead of failing at once.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL;",
            # Writers take the lock at BEGIN, so two table commands in different
            # threads or processes serialise instead of failing on lock upgrade.
            "transaction_mode": "IMMEDIATE",
        }
    )
elif env_bool("DB_POOL", True) and DATABASES["default"]["ENGINE"].endswith("postgresql"):
    # psycopg's pool: connections are reused across requests and consumer calls.
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": int(os.environ.get("DB_POOL_MIN", "2")),
        "max_size": int(os.environ.get("DB_POOL_MAX", "20")),
        "timeout": 10,
    }
if DATABASES["default"]["ENGINE"].endswith("postgresql") and os.environ.get(
        "DB_SYNCHRONOUS_COMMIT"):
    # "off": a commit returns before its WAL record is flushed to disk (no fsync wait;
    # a PostgreSQL crash may lose the last fraction of a second of commits, never
    # consistency). Default: the server's setting (on). See docs/benchmarks.md "Scale".
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = (
        f"-c synchronous_commit={os.environ['DB_SYNCHRONOUS_COMMIT']}")

# Channel layer: in-memory by default (one process), Redis from REDIS_URL.
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    # CHANNELS_BACKEND "pubsub" (default): a group_send is one PUBLISH, pushed to
    # every process with a member of the group; "core": the classic layer (group
    # members in sorted sets, a queue per process read with one blocking pop per
    # message). Measured in docs/benchmarks.md, "Scale": with "core" the receive
    # loop fell ~1 s behind at 150 tables and dropped sockets on read timeouts when
    # the machine was starved; "pubsub" delivered at p50 26 ms.
    if os.environ.get("CHANNELS_BACKEND", "pubsub") == "core":
        CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "channels_redis.core.RedisChannelLayer",
                "CONFIG": {
                    # redis-py's default of 100 connections per process is exhausted
                    # when hundreds of websockets join or leave at once (measured:
                    # MaxConnectionsError at 2,000 connections).
                    "hosts": [{"address": REDIS_URL, "max_connections": int(
                        os.environ.get("CHANNELS_REDIS_MAX_CONNECTIONS", "1000"))}],
                    "prefix": os.environ.get("CHANNELS_PREFIX", "poker"),
                    "capacity": 1000,
                    "expiry": 30,
                },
            }
        }
    else:
        CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
                "CONFIG": {"hosts": [REDIS_URL],
                           "prefix": os.environ.get("CHANNELS_PREFIX", "poker")},
            }
        }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# Live tables (see docs/protocol.md for the client side of these numbers).
TABLES = {
    "TURN_SECONDS": int(os.environ.get("TABLES_TURN_SECONDS", "30")),
    "SHOWDOWN_SECONDS": int(os.environ.get("TABLES_SHOWDOWN_SECONDS", "5")),
    "HOUSE_BOT_DELAY": float(os.environ.get("HOUSE_BOT_DELAY", "1.0")),
    "HOUSE_BOT_FACTORY": "botkit.house.make_bot",
    "PRESENCE_TIMEOUT": 12,  # a connection silent this long (s) is dropped
    "PRESENCE_WRITE_EVERY": 4,  # one batched last_seen write per process this often (s)
    "SEAT_GRACE_SECONDS": 600,  # a disconnected player keeps the seat this long
    "MAX_MESSAGE_BYTES": 64 * 1024,
    "RATE_PER_SECOND": float(os.environ.get("TABLES_RATE_PER_SECOND", "10")),  # per connection
    "RATE_BURST": int(os.environ.get("TABLES_RATE_BURST", "30")),
    # Per account across all its connections in one process (tables/limits.py); a bot
    # playing many tables at once needs more than a person.
    "USER_RATE_PER_SECOND": float(os.environ.get("TABLES_USER_RATE_PER_SECOND", "20")),
    "BOT_RATE_PER_SECOND": float(os.environ.get("TABLES_BOT_RATE_PER_SECOND", "200")),
    # Open table connections per account, across every process (counted in the database).
    "MAX_CONNECTIONS_PER_USER": int(os.environ.get("TABLES_MAX_CONNECTIONS_PER_USER", "30")),
    "MAX_CONNECTIONS_PER_BOT": int(os.environ.get("TABLES_MAX_CONNECTIONS_PER_BOT", "1000")),
    "CHAT_MAX_LENGTH": 500,
    "CHAT_PER_MINUTE": 20,
    "WORKER_IN_PROCESS": env_bool("TABLES_WORKER_IN_PROCESS", not REDIS_URL),
    "WORKER_TICK_SECONDS": float(os.environ.get("TABLES_WORKER_TICK_SECONDS", "0.1")),
    # Called by the worker's housekeeping step (about once a second), e.g. statistics.
    "WORKER_HOOKS": ["research.services.update_stats"],
    # Websocket database calls in asgiref's thread pool (ASGI_THREADS) instead of
    # Channels' one shared thread per process (docs/benchmarks.md, "Scale").
    "DB_PARALLEL": env_bool("TABLES_DB_PARALLEL", False),
    # Live tables owned by one process each, written behind with group commits
    # (tables/owner.py, docs/scale.md); PostgreSQL only.
    "OWNERS": env_bool("TABLES_OWNERS", False),
    "OWNER_COMMIT_MS": float(os.environ.get("TABLES_OWNER_COMMIT_MS", "10")),
    "OWNER_COMMIT_LANES": int(os.environ.get("TABLES_OWNER_COMMIT_LANES", "2")),
    "OWNER_LEASE_SECONDS": float(os.environ.get("TABLES_OWNER_LEASE_SECONDS", "3")),
    "OWNER_BUSY_PERCENT": float(os.environ.get("TABLES_OWNER_BUSY_PERCENT", "0")),
    "OWNER_BUSY_LAG_MS": float(os.environ.get("TABLES_OWNER_BUSY_LAG_MS", "150")),
    "OWNER_BUSY_COMMIT_MS": float(os.environ.get("TABLES_OWNER_BUSY_COMMIT_MS", "250")),
    "OWNER_MAX_TABLES": int(os.environ.get("TABLES_OWNER_MAX_TABLES", "0")),
    "OWNER_BUSY_RETRY_SECONDS": int(os.environ.get("TABLES_OWNER_BUSY_RETRY_SECONDS", "5")),
    "OWNER_REPORT_SECONDS": float(os.environ.get("TABLES_OWNER_REPORT_SECONDS", "0")),
}

# Shared cache (API throttling counters): Redis when there is one, so that every
# server process counts against the same limits; else this process's memory.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ.get("CACHE_REDIS_URL", REDIS_URL),
            "KEY_PREFIX": os.environ.get("CHANNELS_PREFIX", "poker"),
            # Redis away: fail fast (the API throttle then fails open, api/throttles.py).
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }

AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", BASE_DIR / "staticfiles"))
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Bots send "Authorization: Bearer <token>"; browsers use their session (with CSRF).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.BotTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": ["api.parsers.BoundedJSONParser"],  # JSON, depth/size bounded
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # One error format for every error: {"error": {"code", "message", "details"}}.
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
    # Per bot (token) or user (session); scopes are named by the views (docs/api.md).
    "DEFAULT_THROTTLE_RATES": {
        "default": os.environ.get("API_RATE_DEFAULT", "3000/min"),
        "commands": os.environ.get("API_RATE_COMMANDS", "1200/min"),
        "wait": os.environ.get("API_RATE_WAIT", "3000/min"),
        "create": os.environ.get("API_RATE_CREATE", "60/min"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Poker server API",
    "DESCRIPTION": "Bot and browser API of the poker server (see docs/api.md).",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI from local static files (drf-spectacular-sidecar): no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
}
API = {"LONG_POLL_MAX_SECONDS": float(os.environ.get("API_LONG_POLL_MAX_SECONDS", "30"))}
# Anonymous visitors may open the lobby and watch tables read-only (never play, chat
# or see hidden cards): off by default (docs/browser.md, "Public spectating").
PUBLIC_SPECTATING = env_bool("PUBLIC_SPECTATING", False)
RESEARCH = {
    "MAX_MATCH_HANDS": int(os.environ.get("RESEARCH_MAX_MATCH_HANDS", "100000")),
    "PHH_MAX_HANDS": 2000,  # matches up to this many hands keep their .phhs
    "MATCHES_IN_THREAD": True,  # play API-started matches in a background thread
}

# Production hardening: active whenever DEBUG is off (manage.py check --deploy is clean).
if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"
    X_FRAME_OPTIONS = "DENY"

# --- Content-Security-Policy and other response headers (docs/security.md)
# One policy in DEBUG and production (django-csp 4, csp.middleware.CSPMiddleware): only
# files from this origin, no inline script or style (no style="" attributes either), no
# eval, no plugins, no framing. Websockets are same-origin ('self' covers ws:/wss: to
# this host in current browsers). tests/test_security_headers.py checks every page;
# the browser tests fail on any violation.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "font-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}
# Swagger UI (API docs) would show a badge image from validator.swagger.io (the schema
# URL sent to a third party, and blocked by img-src) on any host but localhost: off.
SPECTACULAR_SETTINGS["SWAGGER_UI_SETTINGS"] = {"deepLinking": True, "validatorUrl": None}

# --- Brute-force protection: logins and registration (docs/security.md)
# django-axes counts failed logins (the site's and the admin's: every authenticate())
# in the database, the source of truth (it keeps working with Redis down). Past a
# limit every attempt, even with the right password, is answered 429 until the
# cool-off has passed. The hooks are in accounts/throttle.py.
from datetime import timedelta  # noqa: E402 (this section's own import)

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses locked-out attempts
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "accounts.throttle.LoginAttempts"  # axes' database handler, a limit per parameter
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]  # each locks on its own
# Per username: low enough that no one password is guessed (10 tries a cool-off), but it
# is also what lets a stranger lock an account out, hence a short cool-off, not a
# permanent lock (docs/security.md: the trade-off, and how an admin unlocks).
AXES_FAILURE_LIMIT = int(os.environ.get("LOGIN_FAILURES_PER_USERNAME", "10"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("LOGIN_COOLOFF_MINUTES", "15")))
AXES_RESET_ON_SUCCESS = True  # a success forgets that user's own failures from that address
# A lockout ends one cool-off after the failure that caused it (the page says when);
# refused attempts during it are not counted and do not extend it.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "accounts.throttle.lockout_response"  # 429 page, or JSON for APIs
AXES_CLIENT_IP_CALLABLE = "accounts.throttle.client_ip"  # TRUSTED_PROXY_COUNT; IPv6 per /64
BRUTE_FORCE = {
    # Per client address: higher than per username, since many people can share one
    # address (NAT, an office, a lab) and only its own users suffer its lockout.
    "LOGIN_FAILURES_PER_IP": int(os.environ.get("LOGIN_FAILURES_PER_IP", "30")),
    # New accounts per client address per hour (counted in the cache; 0: no limit).
    "REGISTRATIONS_PER_IP_PER_HOUR": int(os.environ.get("REGISTRATIONS_PER_IP_PER_HOUR", "10")),
    # Our reverse proxies in front of Daphne that append to X-Forwarded-For: 0 = none,
    # the address is REMOTE_ADDR. Behind nginx set 1, or everyone shares nginx's address.
    "TRUSTED_PROXY_COUNT": int(os.environ.get("TRUSTED_PROXY_COUNT", "0")),
}

# --- Input bounds (docs/security.md)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"daphne": {"level": "WARNING"}, "django.channels.server": {"level": "WARNING"}},
}
