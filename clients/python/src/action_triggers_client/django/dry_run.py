"""What the import's ``--dry-run`` prints of a trigger body: output that gets pasted into tickets
and CI logs, so header values, connection details and credentials in URLs are masked."""
from __future__ import annotations

import urllib.parse
from typing import Any

MASK = "***"


def masked_body(body: Any) -> dict[str, Any]:
    out = dict(body)
    out["webhooks"] = [_masked_webhook(w) for w in body.get("webhooks", [])]
    out["msg_broker_queues"] = [_masked_queue(q) for q in body.get("msg_broker_queues", [])]
    return out


def _masked_webhook(webhook: dict[str, Any]) -> dict[str, Any]:
    out = dict(webhook)
    if isinstance(webhook.get("url"), str):
        out["url"] = masked_url(webhook["url"])
    if isinstance(webhook.get("headers"), dict):
        out["headers"] = {name: MASK for name in webhook["headers"]}
    return out


def _masked_queue(queue: dict[str, Any]) -> dict[str, Any]:
    out = dict(queue)
    if isinstance(queue.get("conn_details"), dict):
        out["conn_details"] = {key: MASK for key in queue["conn_details"]}
    return out


def masked_url(url: str) -> str:
    """The URL with its user info, its path after the first segment and its query values masked:
    tokens travel in all three (a chat service's incoming-webhook URL is a secret path)."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return MASK
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{MASK}@{netloc.rsplit('@', 1)[1]}"
    first, sep, rest = parts.path.lstrip("/").partition("/")
    path = f"/{first}/{MASK}" if sep and rest else parts.path
    query = "&".join(f"{pair.split('=', 1)[0]}={MASK}" if "=" in pair else pair for pair in parts.query.split("&")) if parts.query else ""
    return urllib.parse.urlunsplit((parts.scheme, netloc, path, query, parts.fragment))
