"""A plain client for the action-triggers service: standard library only (urllib).

Triggers CRUD at ``/api/action-triggers`` and signals at ``/api/signals``. A signal gets its
id here, before the first attempt, so a retry after a lost answer never starts a second
dispatch (the service answers ``"duplicate": true`` to the same id). Calls that are safe to
repeat (GET, PUT, DELETE and signals with their fixed ids) are retried with exponential
back-off and jitter on connection errors, time-outs, 408, 425, 429 and 5xx; creating and
patching a trigger are not (a lost answer and a second ask would be a second change).
Every error answer raises :class:`ProblemError`, which carries the problem+json body. Redirects
are never followed (the API key would go wherever they point): a 3xx raises
:class:`RedirectRefused`, naming the address to put in ``base_url`` instead.
"""
from __future__ import annotations

import http.client
import json
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from .errors import RETRYABLE_STATUSES, ActionTriggersError, FieldError, ProblemError, RedirectRefused, TransportError
from .shapes import Accepted, ConfigSignal, ContentType, MessageBrokerQueue, Signal, Trigger, TriggerInput, Webhook

# The shapes and errors live in their own modules and are part of this one's interface.
__all__ = [
    "ActionTriggersClient", "ActionTriggersError", "ProblemError", "TransportError", "RedirectRefused", "FieldError",
    "Signal", "Accepted", "Trigger", "TriggerInput", "Webhook", "MessageBrokerQueue", "ContentType",
    "ConfigSignal", "TriggerPage", "RetryPolicy", "new_signal_id", "RETRYABLE_STATUSES",
]


@dataclass(frozen=True)
class TriggerPage:
    items: list[Trigger]
    next_cursor: str | None


@dataclass(frozen=True)
class RetryPolicy:
    """``attempts`` in all (1: no retry); waits of ``initial`` seconds doubling up to ``maximum``, with full jitter."""
    attempts: int = 4
    initial: float = 0.2
    maximum: float = 5.0

    def wait(self, attempt: int, retry_after: float | None = None) -> float:
        backoff = random.uniform(0, min(self.maximum, self.initial * 2 ** (attempt - 1)))
        if retry_after is not None:
            return min(max(backoff, retry_after), self.maximum)
        return backoff


@dataclass
class _Response:
    status: int
    headers: dict[str, str]
    body: Any = field(default=None)


def new_signal_id() -> str:
    """A fresh signal id (a UUID), fixed before the first attempt."""
    return str(uuid.uuid4())


def _retry_after(headers: Mapping[str, str]) -> float | None:
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


class ActionTriggersClient:
    """``ActionTriggersClient("http://127.0.0.1:8080", api_key=...)``.

    ``timeout`` is per attempt, in seconds; ``retry`` says how often calls that are safe to
    repeat are tried.
    """

    def __init__(self, base_url: str, api_key: str | None = None, *, timeout: float = 10.0,
                 retry: RetryPolicy | None = None, user_agent: str = "action-triggers-client-python/0.1") -> None:
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"base_url must be an absolute http(s) URL, not {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self.user_agent = user_agent
        # No proxies from the environment: the service is called directly. No redirects either:
        # urllib would follow one with the API key to wherever it points, as a GET.
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _RefuseRedirects())

    # ---- triggers ----------------------------------------------------------------------------

    def create_trigger(self, trigger: TriggerInput) -> Trigger:
        """``POST /api/action-triggers``; not retried (a second ask would be a second trigger)."""
        return self._call("POST", "/api/action-triggers", trigger, retry=False).body

    def get_trigger(self, trigger_id: str, *, as_of: str | None = None) -> Trigger:
        query = {"as_of": as_of} if as_of else None
        return self._call("GET", f"/api/action-triggers/{_quote(trigger_id)}", query=query).body

    def list_triggers(self, *, active: bool | None = None, signal: str | None = None, app_label: str | None = None,
                      model_name: str | None = None, q: str | None = None, limit: int | None = None,
                      cursor: str | None = None) -> TriggerPage:
        query = {k: v for k, v in {
            "active": None if active is None else ("true" if active else "false"), "signal": signal,
            "app_label": app_label, "model_name": model_name, "q": q,
            "limit": None if limit is None else str(limit), "cursor": cursor}.items() if v is not None}
        res = self._call("GET", "/api/action-triggers", query=query)
        return TriggerPage(items=res.body, next_cursor=_next_param(res.headers.get("link"), "cursor"))

    def replace_trigger(self, trigger_id: str, trigger: TriggerInput, *, expected_version: int | None = None) -> Trigger:
        """``PUT``: a full replacement; with ``expected_version`` a concurrent change answers 412."""
        return self._call("PUT", f"/api/action-triggers/{_quote(trigger_id)}", trigger,
                          headers=_if_match(expected_version)).body

    def patch_trigger(self, trigger_id: str, patch: Mapping[str, Any], *, expected_version: int | None = None) -> Trigger:
        """``PATCH`` (JSON merge patch); not retried."""
        headers = {"content-type": "application/merge-patch+json", **_if_match(expected_version)}
        return self._call("PATCH", f"/api/action-triggers/{_quote(trigger_id)}", patch, headers=headers, retry=False).body

    def delete_trigger(self, trigger_id: str) -> None:
        self._call("DELETE", f"/api/action-triggers/{_quote(trigger_id)}")

    # ---- signals -----------------------------------------------------------------------------

    def emit(self, signal: Signal) -> Accepted:
        """``POST /api/signals`` with one signal. Its id is fixed before the first attempt (a
        fresh one when the signal has none), so retries never start a second dispatch. A
        ``previous`` (the instance before the change) goes beside ``instance``; a ``None`` one
        is left out (there was no previous state: a creation)."""
        body = _with_id(signal)
        return self._call("POST", "/api/signals", body, retry=True).body

    def emit_many(self, signals: Sequence[Signal]) -> list[Accepted]:
        """The batch form: at most 500 signals; any bad one and nothing is accepted
        (``ProblemError.errors`` names each by ``[i]``)."""
        if not signals:
            return []
        body = [_with_id(s) for s in signals]
        return self._call("POST", "/api/signals", body, retry=True).body

    def signal_status(self, signal_id: str) -> dict[str, Any]:
        """``GET /api/signals/<id>``: the dispatch state and each action's outcome."""
        return self._call("GET", f"/api/signals/{_quote(signal_id)}").body

    def cancel_deliveries(self, signal_id: str, delivery_ids: Sequence[str] | None = None) -> dict[str, Any]:
        """``POST /api/signals/<id>/cancel``: ends the signal's pending deliveries (all, or those
        named); they are never attempted again and show ``cancelled`` with who and when. A
        ``ProblemError`` 409 when nothing was left to cancel (``errors`` says how each named one
        ended). Not retried: after a lost answer a second ask finds them cancelled (a 409)."""
        body: dict[str, Any] = {} if delivery_ids is None else {"delivery_ids": list(delivery_ids)}
        return self._call("POST", f"/api/signals/{_quote(signal_id)}/cancel", body).body

    # ---- transport ---------------------------------------------------------------------------

    def _call(self, method: str, path: str, body: Any = None, *, headers: Mapping[str, str] | None = None,
              query: Mapping[str, str] | None = None, retry: bool | None = None) -> _Response:
        if retry is None:
            retry = method in ("GET", "PUT", "DELETE", "HEAD")
        attempts = self.retry.attempts if retry else 1
        url = self.base_url + path + (("?" + urllib.parse.urlencode(query)) if query else "")
        data = None if body is None else json.dumps(body, separators=(",", ":"), allow_nan=False).encode()
        all_headers = {"accept": "application/json, application/problem+json", "user-agent": self.user_agent}
        if data is not None:
            all_headers["content-type"] = "application/json"
        if self.api_key:
            all_headers["authorization"] = f"Bearer {self.api_key}"
        all_headers.update({k.lower(): v for k, v in (headers or {}).items()})
        attempt = 0
        while True:
            attempt += 1
            try:
                return self._once(method, url, data, all_headers)
            except ProblemError as e:
                if not e.retryable or attempt >= attempts:
                    raise
                time.sleep(self.retry.wait(attempt, _retry_after(e.headers)))
            except TransportError:
                if attempt >= attempts:
                    raise
                time.sleep(self.retry.wait(attempt))

    def _once(self, method: str, url: str, data: bytes | None, headers: dict[str, str]) -> _Response:
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with self._opener.open(request, timeout=self.timeout) as res:
                return _Response(res.status, _lower(res.headers), _parse(res.read()))
        except urllib.error.HTTPError as e:
            if 300 <= e.code < 400:
                e.close()
                raise RedirectRefused(e.code, method, url, e.headers.get("location")) from None
            with e:
                raw = e.read()
                parsed = _parse(raw, strict=False)
            problem = parsed if isinstance(parsed, dict) else {"detail": raw.decode("utf-8", "replace")[:500]}
            raise ProblemError(e.code, problem, _lower(e.headers)) from None
        except (urllib.error.URLError, http.client.HTTPException, ConnectionError, socket.timeout, TimeoutError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise TransportError(f"{method} {url}: {reason}", e) from e


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    """Every 3xx is answered as it came (an HTTPError), never followed."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _lower(headers: Any) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items()} if headers is not None else {}


def _parse(raw: bytes, strict: bool = True) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        if strict:
            raise ActionTriggersError(f"the service answered something that is not JSON: {raw[:200]!r}") from None
        return None


def _quote(s: str) -> str:
    return urllib.parse.quote(s, safe="")


def _if_match(version: int | None) -> dict[str, str]:
    return {} if version is None else {"if-match": f'"{version}"'}


def _with_id(signal: Signal) -> dict[str, Any]:
    out = dict(signal)
    if not out.get("id"):
        out["id"] = new_signal_id()
    if "previous" in out and out["previous"] is None:
        del out["previous"]  # no previous state; the service takes an object or nothing
    return out


def _next_param(link: str | None, param: str) -> str | None:
    if not link:
        return None
    for part in link.split(","):
        if 'rel="next"' not in part:
            continue
        target = part[part.find("<") + 1:part.find(">")]
        values = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query).get(param)
        if values:
            return values[0]
    return None
