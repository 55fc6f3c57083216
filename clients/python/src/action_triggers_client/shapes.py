"""The JSON shapes of the service's requests and answers, as the client types them."""
from __future__ import annotations

from typing import Any, Literal, TypedDict

SignalName = Literal["pre_save", "post_save", "pre_delete", "post_delete"]


class ConfigSignal(TypedDict):
    signal: SignalName


class ContentType(TypedDict):
    app_label: str
    model_name: str


class _WebhookRequired(TypedDict):
    url: str
    http_method: str


class Webhook(_WebhookRequired, total=False):
    headers: dict[str, str]
    timeout_secs: float
    # A name in the service config's ``signing_secrets`` (never a secret itself).
    signing_secret: str
    #: This webhook's own payload template, sent instead of the trigger's ``payload``.
    payload: Any


class _QueueRequired(TypedDict):
    name: str


class MessageBrokerQueue(_QueueRequired, total=False):
    conn_details: dict[str, str]
    parameters: dict[str, str]
    timeout_secs: float
    #: This queue's own payload template, published instead of the trigger's ``payload``.
    payload: Any


class _TriggerInputRequired(TypedDict):
    config_signals: list[ConfigSignal]
    content_types: list[ContentType]
    active: bool


class TriggerInput(_TriggerInputRequired, total=False):
    """What ``POST /api/action-triggers`` and ``PUT`` take (django-action-triggers' field names)."""
    webhooks: list[Webhook]
    msg_broker_queues: list[MessageBrokerQueue]
    payload: Any
    #: ``"per_instance"``: one instance's signals are delivered in the order the service accepted them.
    ordering: Literal["none", "per_instance"]
    #: Fires only for the signals it holds of (docs/conditions.md), e.g.
    #: ``{"instance.status": {"$changed": {"from": "pending", "to": "paid"}}}``; ``None`` in a
    #: ``PATCH`` removes it.
    condition: dict[str, Any] | None


class Trigger(TriggerInput, total=False):
    """A stored trigger: the definition plus the read-only fields the service adds."""
    id: str
    version: int
    created_at: str
    updated_at: str
    deactivated_reason: str


class _SignalRequired(TypedDict):
    signal: SignalName
    app_label: str
    model_name: str
    instance: dict[str, Any]


class Signal(_SignalRequired, total=False):
    id: str
    occurred_at: str
    #: The instance a ``per_instance`` trigger orders by (default ``instance.pk``, else ``instance.id``).
    instance_key: str
    #: The instance before the change (same shape as ``instance``), for conditions' ``previous.``
    #: paths and ``$changed``, and ``{{ previous.… }}`` in templates. ``None`` (no previous state:
    #: a creation) is left out of the request; the service takes an object or nothing.
    previous: dict[str, Any] | None


class Accepted(TypedDict):
    id: str
    workflow_id: str
    duplicate: bool
    state: str
