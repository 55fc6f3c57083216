"""The one setting, ``ACTION_TRIGGERS_CLIENT``, read and checked for its shape (cached until
settings change); ``checks.py`` checks its names against the installed models at start."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache
from typing import Any

from django.conf import settings as django_settings
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed

SETTING = "ACTION_TRIGGERS_CLIENT"
KNOWN = {
    "BASE_URL", "API_KEY", "CONTENT_TYPES", "EXPAND", "SEND_SECRET_FIELDS", "ORIGIN_FIELDS", "SEND_PREVIOUS", "SEND_ON_COMMIT",
    "TIMEOUT", "BATCH_SIZE", "MAX_BATCH_BYTES", "KEEP_SENT", "RELAY_POLL_INTERVAL", "RELAY_MIN_AGE", "RELAY_MAX_BACKOFF",
}
ALL = "__all__"
SIGNALS = ("pre_save", "post_save", "pre_delete", "post_delete")


@dataclass(frozen=True)
class Settings:
    base_url: str
    api_key: str | None
    # Label -> the signals it emits; None: every model, every signal ("__all__"). Unset: {} (nothing).
    content_types: dict[str, frozenset[str]] | None
    content_types_set: bool
    expand: dict[str, tuple[str, ...]]
    send_secret_fields: dict[str, frozenset[str]]
    # Models whose instances also carry Django's serializer's "fields" map (`__fields__`), for
    # imported triggers that keep django-action-triggers' no-payload body (`--origin-shape`).
    origin_fields: frozenset[str]
    # Models whose post_save of an existing instance also carries `previous` (the stored row, read
    # in pre_save); None: every model that sends post_save (True). Unset: none (no extra query).
    send_previous: frozenset[str] | None
    send_on_commit: bool
    timeout: float
    batch_size: int
    max_batch_bytes: int
    keep_sent: timedelta
    relay_poll_interval: float
    relay_min_age: float
    relay_max_backoff: float


def _seconds(key: str, value: Any, minimum: float = 0) -> float:
    if isinstance(value, timedelta):
        value = value.total_seconds()
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < minimum:
        raise ImproperlyConfigured(f"{SETTING}['{key}'] must be a number of seconds >= {minimum}")
    return float(value)


def _label(key: str, value: Any) -> str:
    if not isinstance(value, str) or value.count(".") != 1 or not all(value.split(".")):
        raise ImproperlyConfigured(f"{SETTING}['{key}'] entries must be 'app_label.model_name' strings, not {value!r}")
    return value.lower()


def _content_types(value: Any) -> dict[str, frozenset[str]] | None:
    """``["app.model", ...]`` (every signal), ``{"app.model": ["post_save", ...] or "__all__"}``, or
    ``"__all__"`` (every model: an explicit choice). Unset: nothing is sent."""
    key = f"{SETTING}['CONTENT_TYPES']"
    if value is None:
        return {}
    if value == ALL:
        return None
    if isinstance(value, dict):
        out = {}
        for label, signals in value.items():
            if signals == ALL:
                signals = SIGNALS
            if isinstance(signals, str) or not isinstance(signals, (list, tuple)) or not signals:
                raise ImproperlyConfigured(f"{key}['{label}'] must be a list of signals ({', '.join(SIGNALS)}) or '{ALL}'")
            unknown = [s for s in signals if s not in SIGNALS]
            if unknown:
                raise ImproperlyConfigured(f"{key}['{label}'] names {unknown}, which are not signals; signals: {', '.join(SIGNALS)}")
            out[_label("CONTENT_TYPES", label)] = frozenset(signals)
        return out
    if isinstance(value, (list, tuple, set, frozenset)):
        return {_label("CONTENT_TYPES", c): frozenset(SIGNALS) for c in value}
    raise ImproperlyConfigured(f"{key} must be a list of 'app_label.model_name', a dict of them to signals, or '{ALL}'")


def _send_previous(value: Any) -> frozenset[str] | None:
    """``["app.model", ...]`` or ``True`` (every model that sends post_save). Unset, ``False`` or
    ``[]``: none. ``checks.py`` checks the names against the installed models and ``CONTENT_TYPES``."""
    if value is None or value is False:
        return frozenset()
    if value is True:
        return None
    if isinstance(value, str) or not isinstance(value, (list, tuple, set, frozenset)):
        raise ImproperlyConfigured(f"{SETTING}['SEND_PREVIOUS'] must be a list of 'app_label.model_name' (the models whose "
                                   f"post_save carries the instance before the change) or True (every model sent), not {value!r}")
    return frozenset(_label("SEND_PREVIOUS", label) for label in value)


def _names_by_model(raw: dict[str, Any], key: str, what: str) -> dict[str, list[str]]:
    value = raw.get(key) or {}
    if not isinstance(value, dict):
        raise ImproperlyConfigured(f"{SETTING}['{key}'] must map 'app_label.model_name' to {what}")
    out = {}
    for label, names in value.items():
        if isinstance(names, str) or not isinstance(names, (list, tuple)) or not all(isinstance(n, str) and n for n in names):
            raise ImproperlyConfigured(f"{SETTING}['{key}']['{label}'] must be a list of {what}")
        out[_label(key, label)] = list(names)
    return out


@lru_cache(maxsize=1)
def settings() -> Settings:
    raw = getattr(django_settings, SETTING, None)
    if not isinstance(raw, dict):
        raise ImproperlyConfigured(f"{SETTING} must be a dict with at least BASE_URL")
    unknown = sorted(set(raw) - KNOWN)
    if unknown:
        raise ImproperlyConfigured(f"{SETTING} has unknown keys {unknown}; known: {sorted(KNOWN)}")
    base_url = raw.get("BASE_URL")
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
        raise ImproperlyConfigured(f"{SETTING}['BASE_URL'] must be the service's http(s) URL")
    api_key = raw.get("API_KEY")
    if api_key is not None and not isinstance(api_key, str):
        raise ImproperlyConfigured(f"{SETTING}['API_KEY'] must be a string")
    expand = {label: tuple(names) for label, names in _names_by_model(raw, "EXPAND", "relation names (dotted for deeper)").items()}
    secret_fields = {label: frozenset(names) for label, names in _names_by_model(raw, "SEND_SECRET_FIELDS", "field names").items()}
    origin_fields = raw.get("ORIGIN_FIELDS") or []
    if isinstance(origin_fields, str) or not isinstance(origin_fields, (list, tuple, set, frozenset)):
        raise ImproperlyConfigured(f"{SETTING}['ORIGIN_FIELDS'] must be a list of 'app_label.model_name'")
    send_on_commit = raw.get("SEND_ON_COMMIT", True)
    if not isinstance(send_on_commit, bool):
        raise ImproperlyConfigured(f"{SETTING}['SEND_ON_COMMIT'] must be True or False")
    batch_size = raw.get("BATCH_SIZE", 100)
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or not 1 <= batch_size <= 500:
        raise ImproperlyConfigured(f"{SETTING}['BATCH_SIZE'] must be an integer from 1 to 500 (the service takes 500 per request)")
    max_bytes = raw.get("MAX_BATCH_BYTES", 900_000)
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1024:
        raise ImproperlyConfigured(f"{SETTING}['MAX_BATCH_BYTES'] must be an integer >= 1024")
    min_age = raw.get("RELAY_MIN_AGE")
    return Settings(
        base_url=base_url.rstrip("/"),
        api_key=api_key or None,
        content_types=_content_types(raw.get("CONTENT_TYPES")),
        content_types_set=raw.get("CONTENT_TYPES") is not None,
        expand=expand,
        send_secret_fields=secret_fields,
        origin_fields=frozenset(_label("ORIGIN_FIELDS", label) for label in origin_fields),
        send_previous=_send_previous(raw.get("SEND_PREVIOUS")),
        send_on_commit=send_on_commit,
        timeout=_seconds("TIMEOUT", raw.get("TIMEOUT", 5.0), 0.001),
        batch_size=batch_size,
        max_batch_bytes=max_bytes,
        keep_sent=timedelta(seconds=_seconds("KEEP_SENT", raw.get("KEEP_SENT", 0))),
        relay_poll_interval=_seconds("RELAY_POLL_INTERVAL", raw.get("RELAY_POLL_INTERVAL", 1.0), 0.01),
        # Rows the sender after commit has not tried yet are left to it this long.
        relay_min_age=(5.0 if send_on_commit else 0.0) if min_age is None else _seconds("RELAY_MIN_AGE", min_age),
        relay_max_backoff=_seconds("RELAY_MAX_BACKOFF", raw.get("RELAY_MAX_BACKOFF", 30.0), 0.01),
    )


def _reset(*, setting: str, **_: Any) -> None:
    if setting == SETTING:
        settings.cache_clear()


setting_changed.connect(_reset, dispatch_uid="action_triggers_client.conf.reset")
