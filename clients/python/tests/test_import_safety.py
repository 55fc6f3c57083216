"""The import when a proxy stands between it and the service, and what its dry run may print."""
from __future__ import annotations

import http.client
import urllib.parse
from typing import Iterator

import pytest

pytest.importorskip("action_triggers")  # the origin's app runs on Django < 5.1: the Django 4.2 pass
from action_triggers.models import MessageBrokerQueue, Webhook
from django.test import override_settings
from django.conf import settings

from action_triggers_client.django.models import ImportedConfig
from http_stub import HttpStub
from test_import import _all_trigger_ids, _config, _import, GROUP, origin  # noqa: F401 - origin is a fixture


class Gateway(HttpStub):
    """A real proxy in front of the service: it forwards every request, and answers the first
    ``fail_creates`` trigger creates with ``status`` after the service has answered them, as a
    gateway whose upstream answer timed out does."""

    def __init__(self, upstream: str, status: int, fail_creates: int) -> None:
        self.failed = 0
        target = urllib.parse.urlsplit(upstream)

        def forward(method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
            conn = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
            conn.request(method, path, body=body or None,
                         headers={k: v for k, v in headers.items() if k.lower() not in ("host", "connection")})
            res = conn.getresponse()
            answer = (res.status, res.getheaders(), res.read())
            conn.close()
            if method == "POST" and path == "/api/action-triggers" and self.failed < fail_creates:
                self.failed += 1
                return status, [("content-type", "text/html")], f"<html>{status} from the gateway</html>".encode()
            return answer

        super().__init__(forward)


@pytest.fixture(params=[502, 504])
def gateway(request, service) -> Iterator[Gateway]:
    g = Gateway(service.url, request.param, fail_creates=1)
    with override_settings(ACTION_TRIGGERS_CLIENT={**settings.ACTION_TRIGGERS_CLIENT, "BASE_URL": g.url}):
        yield g
    g.close()


def test_a_create_answered_by_a_gateway_error_is_adopted_on_the_next_run_not_created_twice(origin, client, gateway) -> None:
    before = _all_trigger_ids(client)
    out, error = _import()
    assert gateway.failed == 1 and error is not None
    first = origin["full"].pk  # the first config imported, the one whose create the gateway failed
    assert f"config {first}: failed" in out and "the trigger may have been created" in out
    assert ImportedConfig.objects.get(origin_config_id=first).trigger_id == ""  # kept, unsettled
    created_then = _all_trigger_ids(client) - before

    out, _ = _import()
    adopted = ImportedConfig.objects.get(origin_config_id=first).trigger_id
    assert f"config {first} -> trigger {adopted}: adopted" in out
    assert adopted in created_then
    # One trigger per imported config: the one the gateway's error hid was adopted, not made again.
    linked = set(ImportedConfig.objects.exclude(trigger_id="").values_list("trigger_id", flat=True))
    assert _all_trigger_ids(client) - before == linked and len(linked) == 4


def test_the_dry_run_masks_header_values_connection_details_and_url_credentials(client, receiver) -> None:
    config = _config(signals=["post_save"], models=[GROUP])
    Webhook.objects.create(config=config, url="https://hook-user:hook-pass@hooks.example.com/in?token=url-secret&v=2",
                           http_method="POST", headers={"Authorization": "Bearer header-secret", "X-Tenant": "tenant-7"})
    Webhook.objects.create(config=config, url="https://chat.example.com/services/T000/B000/path-secret", http_method="POST")
    MessageBrokerQueue.objects.create(config=config, name="orders", conn_details={"password": "broker-secret", "host": "mq.internal"},
                                      parameters={"queue": "imported-orders"})
    try:
        out, _ = _import("--dry-run")
    finally:
        config.delete()
    for secret in ("hook-user", "hook-pass", "url-secret", "header-secret", "tenant-7", "broker-secret", "mq.internal", "path-secret", "T000"):
        assert secret not in out
    assert '"headers": {"Authorization": "***", "X-Tenant": "***"}' in out
    assert '"conn_details": {"host": "***", "password": "***"}' in out
    assert '"url": "https://***@hooks.example.com/in?token=***&v=***"' in out
    assert '"url": "https://chat.example.com/services/***"' in out
    assert '"parameters": {"queue": "imported-orders"}' in out  # not a secret: shown
