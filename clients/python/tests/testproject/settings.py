"""The test project's settings. The test session (conftest.py) sets the environment: the
SQLite file, the service's URL, and for relay subprocesses what the test overrides (on
PostgreSQL: ATC_TEST_PG_PORT and the others read below)."""
import importlib.util
import os

SECRET_KEY = "test-only"
DEBUG = False
USE_TZ = True
TIME_ZONE = "UTC"
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
ROOT_URLCONF = "testproject.urls"
MEDIA_ROOT = os.environ.get("ATC_MEDIA_ROOT", "/tmp/action-triggers-client-media")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "action_triggers_client.django",
    # The origin project's app (django-action-triggers), whose configs test_import.py imports;
    # not in the Django 5.2 venv (it requires Django < 5.1).
    *(["action_triggers"] if importlib.util.find_spec("action_triggers") else []),
    "shop",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True,
    "OPTIONS": {"context_processors": ["django.template.context_processors.request",
                                       "django.contrib.auth.context_processors.auth",
                                       "django.contrib.messages.context_processors.messages"]},
}]
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("ATC_TEST_DB", "/tmp/action-triggers-client-test.sqlite3"),
        "OPTIONS": {"timeout": 30},
    }
}
if os.environ.get("ATC_TEST_PG_PORT"):
    # A test cluster (tests/pg_cluster.py): the session's (ATC_TEST_DATABASE=postgresql) or the
    # two-relay test's subprocesses'; trust auth on loopback.
    DATABASES["default"] = {
        "ENGINE": "django.db.backends.postgresql",
        "HOST": os.environ.get("ATC_TEST_PG_HOST", "127.0.0.1"),
        "PORT": os.environ["ATC_TEST_PG_PORT"],
        "NAME": os.environ.get("ATC_TEST_PG_NAME", "atc"),
        "USER": os.environ.get("ATC_TEST_PG_USER", "postgres"),
    }
ACTION_TRIGGERS_CLIENT = {
    "BASE_URL": os.environ.get("ATC_BASE_URL", "http://127.0.0.1:8080"),
    "CONTENT_TYPES": ["shop.customer", "shop.order", "shop.profile"],
    "EXPAND": {"shop.order": ["customer", "tags"], "shop.profile": ["customer"]},
    "SEND_ON_COMMIT": os.environ.get("ATC_SEND_ON_COMMIT", "1") == "1",
    "BATCH_SIZE": int(os.environ.get("ATC_BATCH_SIZE", "100")),
    "TIMEOUT": 5,
    "RELAY_POLL_INTERVAL": 0.2,
    "RELAY_MAX_BACKOFF": 2,
}
# The origin app's settings. It listens only to auth.group, which no test saves: it must never
# dispatch the configs test_import.py writes.
ACTION_TRIGGERS = {"whitelisted_content_types": ["auth.group"], "whitelisted_webhook_endpoint_patterns": [r"^http://127\.0\.0\.1"]}
ACTION_TRIGGER_SETTINGS = {"MAX_BROKER_TIMEOUT": 5, "MAX_WEBHOOK_TIMEOUT": 5, "MAX_ACTION_TIMEOUT": 5}
LOGGING = {
    "version": 1,
    "handlers": {"stderr": {"class": "logging.StreamHandler"}},
    "loggers": {"action_triggers_client": {"handlers": ["stderr"], "level": "WARNING"}},
}
