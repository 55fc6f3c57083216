"""The service's address answering with a redirect (a load balancer moving http to https, a
proxy, a wrong BASE_URL): the client never follows it, so the API key never reaches another
origin; the rows are not counted as sent and stay pending, and the relay says what to fix."""
from __future__ import annotations

import json
import uuid
from typing import Any, Iterator

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings

from action_triggers_client import ActionTriggersClient, RedirectRefused
from action_triggers_client.django.after_commit import flush_sender
from action_triggers_client.django.models import OutboxSignal
from http_stub import HttpStub
from shop.models import Customer

KEY = "key-that-must-stay-here"


class Server(HttpStub):
    """Answers every request with one scripted reply, and records the requests."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.reply: tuple[int, dict[str, str], bytes] = (200, {}, b"[]")

        def answer(method: str, path: str, headers: dict[str, str], _: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
            self.requests.append({"method": method, "path": path,
                                  "authorization": {k.lower(): v for k, v in headers.items()}.get("authorization")})
            status, reply_headers, body = self.reply
            return status, list(reply_headers.items()), body

        super().__init__(answer)


@pytest.fixture
def servers() -> Iterator[tuple[Server, Server]]:
    """A redirecting address and another origin that would answer 200 to anything."""
    redirector, elsewhere = Server(), Server()
    yield redirector, elsewhere
    redirector.close()
    elsewhere.close()


def _with(**overrides):
    return override_settings(ACTION_TRIGGERS_CLIENT={**settings.ACTION_TRIGGERS_CLIENT, **overrides})


def _customer() -> Customer:
    name = f"redirect-{uuid.uuid4().hex[:10]}"
    return Customer.objects.create(name=name, email=f"{name}@example.org")


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_the_client_never_follows_a_redirect(servers, status: int) -> None:
    redirector, elsewhere = servers
    redirector.reply = (status, {"location": f"{elsewhere.url}/api/signals"}, b"")
    client = ActionTriggersClient(redirector.url, KEY)
    with pytest.raises(RedirectRefused, match=f"answered {status}, a redirect to {elsewhere.url}/api/signals"):
        client.emit({"signal": "post_save", "app_label": "shop", "model_name": "customer", "instance": {"id": 1}})
    with pytest.raises(RedirectRefused):
        client.list_triggers()
    assert [r["authorization"] for r in redirector.requests] == [f"Bearer {KEY}"] * 2  # asked once each: no retry
    assert elsewhere.requests == []


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_rows_answered_with_a_redirect_stay_pending_and_the_relay_names_it(servers, status: int) -> None:
    redirector, elsewhere = servers
    redirector.reply = (status, {"location": f"{elsewhere.url}/api/signals"}, b"")
    with _with(BASE_URL=redirector.url, API_KEY=KEY):
        _customer()
        assert flush_sender(30)
        with pytest.raises(CommandError, match="redirect"):
            call_command("action_triggers_relay", "--once")
    rows = list(OutboxSignal.objects.all())  # the save's pre_save and post_save rows
    assert len(rows) == 2
    assert all(r.state == "pending" and r.attempts == 2 and f"answered {status}, a redirect" in r.last_error for r in rows)
    assert elsewhere.requests == []
    assert {r["authorization"] for r in redirector.requests} == {f"Bearer {KEY}"}


@pytest.mark.parametrize("reply", [
    (200, {"content-type": "text/html"}, b"<html>a login page</html>"),
    (200, {"content-type": "application/json"}, b"[]"),
    (202, {"content-type": "application/json"}, json.dumps([{"id": "another-signal", "duplicate": False}]).encode()),
    (400, {"content-type": "text/html"}, b"<html>400 Bad Request from the proxy</html>"),
    (413, {"content-type": "text/html"}, b"<html>413 Request Entity Too Large</html>"),
], ids=["html", "empty-list", "other-ids", "proxy-400", "proxy-413"])
def test_an_answer_that_is_not_the_service_s_leaves_the_rows_pending(servers, reply) -> None:
    impostor, _ = servers
    impostor.reply = reply
    with _with(BASE_URL=impostor.url, SEND_ON_COMMIT=False):
        _customer()
        with pytest.raises(CommandError, match="unavailable"):
            call_command("action_triggers_relay", "--once")
    rows = list(OutboxSignal.objects.all())  # the save's pre_save and post_save rows
    assert len(rows) == 2 and all(r.state == "pending" and r.attempts == 1 for r in rows)
    assert impostor.requests


def test_a_refused_key_is_named_with_the_setting_to_change(service) -> None:
    """The test service runs without keys; a stand-in answers as a service with keys would."""
    stand_in = Server()
    stand_in.reply = (401, {"content-type": "application/problem+json"},
                      json.dumps({"title": "Unauthorized", "status": 401, "detail": "a valid API key is required"}).encode())
    try:
        with _with(BASE_URL=stand_in.url, API_KEY="wrong", SEND_ON_COMMIT=False):
            _customer()
            with pytest.raises(CommandError, match=r"the service refused the API key .*ACTION_TRIGGERS_CLIENT\['API_KEY'\]"):
                call_command("action_triggers_relay", "--once")
    finally:
        stand_in.close()
