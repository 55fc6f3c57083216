"""One django-action-triggers ``Config`` (the origin app ``action_triggers``) as this service's
trigger body, plus what the service has no place for.

Read through the origin's own models, so its table names and relations are its own business.
Origin values are passed on as they are (no coercion): what the service refuses it names by
field path, and the import reports that per config.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..client import TriggerInput
from .origin_templates import template_problems


@dataclass(frozen=True)
class NotCarried:
    """A part of an origin config the service cannot hold, e.g. ``actions[0]``."""
    path: str
    what: str
    why: str

    def __str__(self) -> str:
        return f"{self.path} ({self.what}): {self.why}"


@dataclass(frozen=True)
class MappedConfig:
    config_id: int
    body: TriggerInput
    not_carried: list[NotCarried] = field(default_factory=list)
    # The origin row ids behind ``webhooks[i]`` and ``msg_broker_queues[i]``, for error messages.
    row_ids: dict[str, list[int]] = field(default_factory=dict)


ORIGIN_SHAPE_PAYLOAD = "{{ instance.__fields__ }}"


def map_config(config: Any, *, origin_shape: bool = False) -> MappedConfig:
    """``config`` is an ``action_triggers.models.Config``. ``origin_shape``: a config without payload
    gets one that sends what the origin sent (Django's serializer's fields, ``ORIGIN_FIELDS``)."""
    webhooks = list(config.webhooks.order_by("id"))
    queues = list(config.message_broker_queues.order_by("id"))
    body: dict[str, Any] = {
        "config_signals": _signals(config),
        "content_types": [{"app_label": ct.app_label, "model_name": ct.model}
                          for ct in config.content_types.order_by("app_label", "model")],
        "webhooks": [_webhook(w) for w in webhooks],
        "msg_broker_queues": [_queue(q) for q in queues],
        "active": bool(config.active),
        # Said, not defaulted: the import finds a trigger it created before a crash by comparing it
        # with this body, and the service shows the field on every trigger.
        "ordering": "none",
    }
    if config.payload is not None:
        body["payload"] = config.payload
    elif origin_shape:
        body["payload"] = ORIGIN_SHAPE_PAYLOAD
    row_ids = {"webhooks": [w.pk for w in webhooks], "msg_broker_queues": [q.pk for q in queues]}
    return MappedConfig(config.pk, body, _not_carried(config), row_ids)  # type: ignore[arg-type]


def _signals(config: Any) -> list[dict[str, str]]:
    # The origin allows the same signal twice on a config; the service refuses repeats, and one is the same trigger.
    seen: list[str] = []
    for signal in config.config_signals.order_by("id").values_list("signal", flat=True):
        if signal not in seen:
            seen.append(signal)
    return [{"signal": s} for s in seen]


def _webhook(webhook: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"url": webhook.url, "http_method": webhook.http_method}
    if webhook.headers is not None:
        out["headers"] = webhook.headers
    if webhook.timeout_secs is not None:
        out["timeout_secs"] = webhook.timeout_secs
    return out


def _queue(queue: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": queue.name}
    for key in ("conn_details", "parameters", "timeout_secs"):
        value = getattr(queue, key)
        if value is not None:
            out[key] = value
    return out


def _not_carried(config: Any) -> list[NotCarried]:
    templates = [NotCarried(p.path, f"{p.found}, origin Config {config.pk}", p.why) for p in template_problems(config.payload)]
    # `Action` (AWS Lambda in 0.5.x) came with origin migration 0008; older releases have no such relation.
    actions = getattr(config, "actions", None)
    if actions is None:
        return templates
    return templates + [NotCarried(f"actions[{i}]", f"AWS Lambda action {action.name!r}, origin Action {action.pk}",
                       "the service has no Lambda actions (only webhooks and message broker queues)")
            for i, action in enumerate(actions.order_by("id"))]
