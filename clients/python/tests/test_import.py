"""``manage.py action_triggers_import``: django-action-triggers' configs, written through its own
models, become the service's triggers, once; what cannot be carried over is named."""
from __future__ import annotations

from typing import Any, Iterator

import pytest

# The origin's app runs on Django < 5.1 only: these tests run in the Django 4.2 pass.
pytest.importorskip("action_triggers")
from action_triggers.models import Action, Config, ConfigSignal, MessageBrokerQueue, Webhook
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.core.management.base import CommandError

from action_triggers_client.django.models import ImportedConfig
from action_triggers_client.django.origin_mapping import map_config

# Models no other test emits signals for: the imported triggers never fire in the other tests.
GROUP = ("auth", "group")
PERMISSION = ("auth", "permission")
SESSION = ("sessions", "session")


def _content_type(app_label: str, model: str) -> ContentType:
    return ContentType.objects.get(app_label=app_label, model=model)


def _config(*, signals: list[str], models: list[tuple[str, str]], active: bool = True, payload: Any = None) -> Config:
    config = Config.objects.create(active=active, payload=payload)
    config.content_types.set([_content_type(*m) for m in models])
    for signal in signals:
        ConfigSignal.objects.create(config=config, signal=signal)
    return config


@pytest.fixture
def origin(receiver, client) -> Iterator[dict[str, Config]]:
    """Three configs that carry over, one naming a broker the service lacks, one with a Lambda action."""
    full = _config(signals=["post_save", "pre_delete", "post_delete"], models=[GROUP, PERMISSION],
                   payload={"group": "{{ instance.name }}", "source": "origin"})
    Webhook.objects.create(config=full, url=f"{receiver.url}/imported-a", http_method="PUT",
                           headers={"X-Origin": "django-action-triggers", "X-Tenant": "t1"}, timeout_secs=2.5)
    Webhook.objects.create(config=full, url=f"{receiver.url}/imported-b", http_method="POST")
    MessageBrokerQueue.objects.create(config=full, name="orders", parameters={"queue": "imported-orders"}, timeout_secs=3)

    webhook_only = _config(signals=["pre_save"], models=[SESSION], active=False)
    Webhook.objects.create(config=webhook_only, url=f"{receiver.url}/imported-c", http_method="PATCH", timeout_secs=1)

    queue_only = _config(signals=["post_save", "post_save"], models=[SESSION])  # the origin allows a repeat
    MessageBrokerQueue.objects.create(config=queue_only, name="orders")

    unknown_broker = _config(signals=["post_save"], models=[GROUP])
    Webhook.objects.create(config=unknown_broker, url=f"{receiver.url}/never", http_method="POST")
    MessageBrokerQueue.objects.create(config=unknown_broker, name="no-such-broker", parameters={"queue": "x"})

    lambda_config = _config(signals=["post_save"], models=[GROUP])
    Webhook.objects.create(config=lambda_config, url=f"{receiver.url}/never", http_method="POST")
    Action.objects.create(config=lambda_config, name="aws_lambda_fn", parameters={"FunctionName": "resize"})

    configs = {"full": full, "webhook_only": webhook_only, "queue_only": queue_only,
               "unknown_broker": unknown_broker, "lambda": lambda_config}
    yield configs
    for trigger_id in ImportedConfig.objects.exclude(trigger_id="").values_list("trigger_id", flat=True):
        _delete_if_there(client, trigger_id)
    ImportedConfig.objects.all().delete()
    Config.objects.all().delete()


def _delete_if_there(client, trigger_id: str) -> None:
    from action_triggers_client.client import ProblemError

    try:
        client.delete_trigger(trigger_id)
    except ProblemError as e:
        assert e.status == 404


def _all_trigger_ids(client) -> set[str]:
    ids: set[str] = set()
    cursor = None
    while True:
        page = client.list_triggers(limit=100, cursor=cursor)
        ids.update(t["id"] for t in page.items)
        if not page.next_cursor:
            return ids
        cursor = page.next_cursor


def _import(*args: str) -> tuple[str, CommandError | None]:
    from io import StringIO

    out = StringIO()
    try:
        call_command("action_triggers_import", *args, stdout=out)
    except CommandError as e:
        return out.getvalue(), e
    return out.getvalue(), None


def _expected(config: Config) -> dict[str, Any]:
    """The origin config read field by field, in the service's terms."""
    signals: list[str] = []
    for s in config.config_signals.order_by("id"):
        if s.signal not in signals:
            signals.append(s.signal)
    expected: dict[str, Any] = {
        "config_signals": [{"signal": s} for s in signals],
        "content_types": sorted(({"app_label": ct.app_label, "model_name": ct.model} for ct in config.content_types.all()),
                                key=lambda ct: (ct["app_label"], ct["model_name"])),
        "webhooks": [{"url": w.url, "http_method": w.http_method,
                      **({"headers": w.headers} if w.headers is not None else {}),
                      **({"timeout_secs": w.timeout_secs} if w.timeout_secs is not None else {})}
                     for w in config.webhooks.order_by("id")],
        "msg_broker_queues": [{"name": q.name,
                               **({"parameters": q.parameters} if q.parameters is not None else {}),
                               **({"timeout_secs": q.timeout_secs} if q.timeout_secs is not None else {})}
                              for q in config.message_broker_queues.order_by("id")],
        "active": config.active,
        "ordering": "none",  # the origin has no such field; the import says the service's default
    }
    if config.payload is not None:
        expected["payload"] = config.payload
    return expected


def _definition(trigger: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in trigger.items() if k not in ("id", "version", "created_at", "updated_at", "deactivated_reason")}


def test_import_creates_each_config_once_and_names_what_it_cannot_carry(origin, client) -> None:
    before = _all_trigger_ids(client)

    out, error = _import()

    assert error is not None, out  # two configs could not be imported: the exit status says so
    imported = {"full", "webhook_only", "queue_only"}
    ids = {name: ImportedConfig.objects.get(origin_config_id=origin[name].pk).trigger_id for name in imported}
    for name in imported:
        assert f"config {origin[name].pk} -> trigger {ids[name]}: created" in out
        assert _definition(client.get_trigger(ids[name])) == _expected(origin[name]), name
    assert _all_trigger_ids(client) - before == {ids[n] for n in imported}

    bad = origin["unknown_broker"]
    queue = bad.message_broker_queues.get()
    assert f"config {bad.pk}: failed" in out
    assert f"msg_broker_queues[0].name: must name a broker in the config (orders) (origin MessageBrokerQueue {queue.pk})" in out
    action = origin["lambda"].actions.get()
    assert f"config {origin['lambda'].pk}: not carried over" in out
    assert set(ImportedConfig.objects.values_list("origin_config_id", flat=True)) == {origin[n].pk for n in imported}
    assert f"actions[0] (AWS Lambda action 'aws_lambda_fn', origin Action {action.pk}): the service has no Lambda actions" in out
    assert out.strip().splitlines()[-1] == "created 3, not carried over 1, failed 1"

    out, error = _import()  # the second run: nothing new
    assert error is not None
    assert _all_trigger_ids(client) - before == {ids[n] for n in imported}
    for name in imported:
        assert f"config {origin[name].pk} -> trigger {ids[name]}: already imported" in out
    assert out.strip().splitlines()[-1] == "already imported 3, not carried over 1, failed 1"


def test_dry_run_prints_the_plan_and_creates_nothing(origin, client) -> None:
    before = _all_trigger_ids(client)

    out, error = _import("--dry-run")

    assert _all_trigger_ids(client) == before
    full = origin["full"]
    assert f"config {full.pk}: would create " in out
    assert not ImportedConfig.objects.exists()
    assert f'"url": "{full.webhooks.order_by("id").first().url}"' in out
    assert "not carried over" in out and error is not None  # the Lambda config is named in the plan too
    assert out.strip().splitlines()[-1] == "dry run: would create 4, not carried over 1, failed 0"


def test_a_create_whose_answer_was_lost_is_adopted_not_repeated(origin, client) -> None:
    """The row written before the create, the trigger created, the answer lost: the next run
    finds the trigger in the service instead of creating a second one."""
    lost = origin["webhook_only"]
    ImportedConfig.objects.create(origin_config_id=lost.pk)
    created = client.create_trigger(map_config(lost).body)
    before = _all_trigger_ids(client)

    out, _ = _import()

    assert f"config {lost.pk} -> trigger {created['id']}: adopted" in out
    assert ImportedConfig.objects.get(origin_config_id=lost.pk).trigger_id == created["id"]
    assert _all_trigger_ids(client) - before == {ImportedConfig.objects.get(origin_config_id=origin[n].pk).trigger_id
                                                 for n in ("full", "queue_only")}
