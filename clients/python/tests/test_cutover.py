"""Moving over from django-action-triggers while the app saves: the import leaves the origin
delivering; ``action_triggers_cutover --to service`` switches, ``--to origin`` switches back; each
save reaches the receiver exactly once, through one system or the other, none lost."""
from __future__ import annotations

import collections
import threading
import time
import uuid
from typing import Iterator

import pytest

pytest.importorskip("action_triggers")  # the origin's app runs on Django < 5.1: the Django 4.2 pass
from action_triggers.models import Config, ConfigSignal, Webhook
from django.conf import settings
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connections
from django.test import override_settings

from action_triggers_client.django.after_commit import flush_sender
from action_triggers_client.django.models import CutOver, ImportedConfig
from test_import import _delete_if_there, _import

SAVES_PER_S, SECONDS = 20, 30


@pytest.fixture
def origin_config(receiver, client) -> Iterator[Config]:
    """One active origin config: post_save of auth.group (the one model the origin listens to here)."""
    config = Config.objects.create(active=True, payload={"name": "{{ instance.name }}"})
    config.content_types.set([ContentType.objects.get(app_label="auth", model="group")])
    ConfigSignal.objects.create(config=config, signal="post_save")
    Webhook.objects.create(config=config, url=f"{receiver.url}/cutover", http_method="POST")
    listing = {**settings.ACTION_TRIGGERS_CLIENT, "CONTENT_TYPES": [*settings.ACTION_TRIGGERS_CLIENT["CONTENT_TYPES"], "auth.group"]}
    with override_settings(ACTION_TRIGGERS_CLIENT=listing):
        yield config
    for trigger_id in ImportedConfig.objects.exclude(trigger_id="").values_list("trigger_id", flat=True):
        _delete_if_there(client, trigger_id)
    ImportedConfig.objects.all().delete()
    Config.objects.all().delete()
    CutOver.objects.all().delete()


def _switch_at(offsets: list[tuple[float, str]], started: float, said: list[tuple[str, float, float]]) -> threading.Thread:
    """Switches at the given offsets; `said` gets (to, began, ended) for each switch."""
    def run() -> None:
        try:
            for at, to in offsets:
                time.sleep(max(0.0, started + at - time.monotonic()))
                began = time.monotonic()
                call_command("action_triggers_cutover", "--to", to)
                said.append((to, began, time.monotonic()))
        finally:
            connections.close_all()
    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_saves_during_a_cut_over_and_back_are_each_delivered_exactly_once(origin_config, receiver) -> None:
    out, error = _import()
    assert error is None, out
    trigger_id = ImportedConfig.objects.get(origin_config_id=origin_config.pk).trigger_id
    assert trigger_id and f"-> trigger {trigger_id}: created" in out

    prefix = f"cut-{uuid.uuid4().hex[:8]}-"
    said: list[tuple[str, float, float]] = []
    saved: dict[str, tuple[float, float]] = {}
    started = time.monotonic()
    switcher = _switch_at([(SECONDS / 3, "service"), (2 * SECONDS / 3, "origin")], started, said)
    count = SAVES_PER_S * SECONDS
    for i in range(count):
        began = time.monotonic()
        Group.objects.create(name=f"{prefix}{i}")  # autocommit, as a view without ATOMIC_REQUESTS
        saved[f"{prefix}{i}"] = (began, time.monotonic())
        time.sleep(max(0.0, started + (i + 1) / SAVES_PER_S - time.monotonic()))
    switcher.join()
    assert [to for to, _, _ in said] == ["service", "origin"]
    assert flush_sender(30)

    def ours(r) -> bool:
        return r["path"] == "/cutover" and isinstance(r["body"], dict) and str(r["body"].get("name", "")).startswith(prefix)
    receiver.wait_for(ours, count=count, timeout=120, key=lambda r: r["body"]["name"])
    time.sleep(2)  # a save delivered twice would show by now
    per_save = collections.Counter(r["body"]["name"] for r in receiver.matching(ours))
    assert len(per_save) == count, f"{count - len(per_save)} saves never delivered"
    assert [name for name, n in per_save.items() if n != 1] == []
    # Each system delivered its part: the origin what was saved before the first switch began and
    # after the second ended, the service what was saved between the two (the service signs with webhook-id).
    by_service = {r["body"]["name"] for r in receiver.matching(ours) if "webhook-id" in r["headers"]}
    (_, to_service_began, to_service_ended), (_, back_began, back_ended) = said
    origin_part = {n for n, (b, e) in saved.items() if e < to_service_began or b > back_ended}
    service_part = {n for n, (b, e) in saved.items() if b > to_service_ended and e < back_began}
    assert origin_part and service_part
    assert origin_part.isdisjoint(by_service)
    assert service_part <= by_service


def test_status_and_refusals_of_the_cut_over_command(origin_config) -> None:
    from io import StringIO

    out = StringIO()
    call_command("action_triggers_cutover", stdout=out)
    assert "the 0 imported config(s) are delivered by the origin" in out.getvalue()
    ImportedConfig.objects.create(origin_config_id=origin_config.pk)  # a create whose answer was lost
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="unsettled create: run action_triggers_import again first"):
        call_command("action_triggers_cutover", "--to", "service")
    assert not CutOver.objects.filter(delivered_by="service").exists()


def test_the_dry_run_says_an_active_origin_config_stays_with_the_origin_until_the_cut_over(origin_config) -> None:
    out, _ = _import("--dry-run")
    assert f"config {origin_config.pk}: would create" in out
    assert "active in django-action-triggers: it goes on delivering these saves" in out
    assert "until `manage.py action_triggers_cutover --to service`" in out


def test_the_import_can_create_every_trigger_inactive(origin_config, client) -> None:
    out, error = _import("--inactive")
    assert error is None, out
    trigger = client.get_trigger(ImportedConfig.objects.get(origin_config_id=origin_config.pk).trigger_id)
    assert trigger["active"] is False and origin_config.active


def test_the_cut_over_refuses_while_content_types_does_not_send_what_imported_configs_watch(origin_config) -> None:
    from django.core.management.base import CommandError

    out, error = _import()
    assert error is None, out
    with override_settings(ACTION_TRIGGERS_CLIENT={**settings.ACTION_TRIGGERS_CLIENT, "CONTENT_TYPES": ["shop.order"]}):
        with pytest.raises(CommandError, match=r"does not send what imported configs watch.*: auth.group post_save; list them first"):
            call_command("action_triggers_cutover", "--to", "service")
    assert not CutOver.objects.filter(delivered_by="service").exists()

