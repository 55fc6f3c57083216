"""Client for the action-triggers service.

``action_triggers_client.client``: the plain client (standard library only).
``action_triggers_client.django``: a Django app that emits model signals through an outbox.
"""
from .client import (  # noqa: F401
    Accepted, ActionTriggersClient, ActionTriggersError, FieldError, ProblemError, RedirectRefused, RetryPolicy,
    Signal, TransportError, Trigger, TriggerInput, TriggerPage, new_signal_id,
)

__version__ = "0.1.0"
