"""One django-action-triggers ``Config`` (the origin app ``action_triggers``) as this service's
trigger body, plus what the service has no place for.

The origin's ``Action`` rows (AWS Lambda) become ``msg_broker_queues`` entries after the queue rows:
the service's ``aws_lambda`` brokers take the origin's ``ACTION_TRIGGERS["actions"]`` as they are.

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
    """A part of an origin config the service cannot hold, e.g. ``payload.state`` (a template tag)."""
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
    # The origin rows behind ``webhooks[i]`` and ``msg_broker_queues[i]``, as (model name, pk), for
    # error messages: a ``msg_broker_queues`` entry came from a MessageBrokerQueue or an Action row.
    row_ids: dict[str, list[tuple[str, int]]] = field(default_factory=dict)


ORIGIN_SHAPE_PAYLOAD = "{{ instance.__fields__ }}"


def map_config(config: Any, *, origin_shape: bool = False) -> MappedConfig:
    """``config`` is an ``action_triggers.models.Config``. ``origin_shape``: a config without payload
    gets one that sends what the origin sent (Django's serializer's fields, ``ORIGIN_FIELDS``)."""
    webhooks = list(config.webhooks.order_by("id"))
    queues = list(config.message_broker_queues.order_by("id"))
    actions = origin_actions(config)
    body: dict[str, Any] = {
        "config_signals": _signals(config),
        "content_types": [{"app_label": ct.app_label, "model_name": ct.model}
                          for ct in config.content_types.order_by("app_label", "model")],
        "webhooks": [_webhook(w) for w in webhooks],
        "msg_broker_queues": [_queue(q) for q in queues] + [lambda_entry(a) for a in actions],
        "active": bool(config.active),
        # Said, not defaulted: the import finds a trigger it created before a crash by comparing it
        # with this body, and the service shows the field on every trigger.
        "ordering": "none",
    }
    if config.payload is not None:
        body["payload"] = config.payload
    elif origin_shape:
        body["payload"] = ORIGIN_SHAPE_PAYLOAD
    row_ids = {"webhooks": [("Webhook", w.pk) for w in webhooks],
               "msg_broker_queues": [("MessageBrokerQueue", q.pk) for q in queues] + [("Action", a.pk) for a in actions]}
    return MappedConfig(config.pk, body, _not_carried(config), row_ids)  # type: ignore[arg-type]


def origin_actions(config: Any) -> list[Any]:
    """The config's ``Action`` rows by id (none on origin releases before the model)."""
    # `Action` (AWS Lambda in 0.5.x) came with origin migration 0008; older releases have no such relation.
    actions = getattr(config, "actions", None)
    return [] if actions is None else list(actions.order_by("id"))


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


LAMBDA_PAYLOAD_ENCODING = {"payload_encoding": "json_string"}


def lambda_entry(action: Any) -> dict[str, Any]:
    """An origin ``Action`` as an entry naming the service's ``aws_lambda`` broker of the same name."""
    out = _queue(action)
    out["parameters"] = _with_origin_encoding(action.parameters)
    return out


def _with_origin_encoding(parameters: Any) -> Any:
    # The origin invoked with json.dumps(json.dumps(payload)): its functions get the body as one JSON
    # string and json.loads it. json_string keeps that event; a row that says its own encoding keeps it.
    if parameters is None:
        return dict(LAMBDA_PAYLOAD_ENCODING)
    if not isinstance(parameters, dict):
        return parameters  # passed on as it is: the service names what it refuses
    return {**LAMBDA_PAYLOAD_ENCODING, **parameters}


def _not_carried(config: Any) -> list[NotCarried]:
    return [NotCarried(p.path, f"{p.found}, origin Config {config.pk}", p.why) for p in template_problems(config.payload)]
