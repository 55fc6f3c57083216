"""``manage.py action_triggers_import``: django-action-triggers' configs, written through its own
models, become the service's triggers, once (their Lambda actions entries naming the service's
``aws_lambda`` brokers); what the service refuses is named with the origin row."""
from __future__ import annotations

import itertools
import json

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
# The origin fixture's configs the service takes.
IMPORTED = ("full", "webhook_only", "queue_only", "lambda")


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
    """Four configs that carry over (one with Lambda actions), one whose queue names a broker the
    service lacks, one whose Lambda action does."""
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

    # Its actions written before its queue: the entries still follow the queue rows.
    lambda_config = _config(signals=["post_save"], models=[GROUP])
    Webhook.objects.create(config=lambda_config, url=f"{receiver.url}/never", http_method="POST")
    Action.objects.create(config=lambda_config, name="aws_lambda_fn", parameters={"FunctionName": "resize"})
    Action.objects.create(config=lambda_config, name="aws_lambda_fn", conn_details={"region_name": "eu-west-1"},
                          parameters={"FunctionName": "thumbnail", "InvocationType": "Event"}, timeout_secs=4.5)
    Action.objects.create(config=lambda_config, name="aws_lambda_fn",
                          parameters={"FunctionName": "audit", "payload_encoding": "json"})
    MessageBrokerQueue.objects.create(config=lambda_config, name="orders", parameters={"queue": "resized"})

    unknown_function = _config(signals=["post_save"], models=[GROUP])
    MessageBrokerQueue.objects.create(config=unknown_function, name="orders")
    Action.objects.create(config=unknown_function, name="no_such_function", parameters={"FunctionName": "gone"})

    configs = {"full": full, "webhook_only": webhook_only, "queue_only": queue_only, "lambda": lambda_config,
               "unknown_broker": unknown_broker, "unknown_function": unknown_function}
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
        "msg_broker_queues": [_expected_entry(q, q.parameters) for q in config.message_broker_queues.order_by("id")]
                             # the Lambda actions after the queues, their functions sent the origin's event (a JSON string)
                             + [_expected_entry(a, {"payload_encoding": "json_string", **(a.parameters or {})})
                                for a in config.actions.order_by("id")],
        "active": config.active,
        "ordering": "none",  # the origin has no such field; the import says the service's default
    }
    if config.payload is not None:
        expected["payload"] = config.payload
    return expected


def _expected_entry(row: MessageBrokerQueue | Action, parameters: Any) -> dict[str, Any]:
    return {"name": row.name,
            **({"conn_details": row.conn_details} if row.conn_details is not None else {}),
            **({"parameters": parameters} if parameters is not None else {}),
            **({"timeout_secs": row.timeout_secs} if row.timeout_secs is not None else {})}


def _definition(trigger: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in trigger.items() if k not in ("id", "version", "created_at", "updated_at", "deactivated_reason")}


def test_import_creates_each_config_once_and_names_the_origin_row_of_what_the_service_refuses(origin, client) -> None:
    before = _all_trigger_ids(client)

    out, error = _import()

    assert error is not None, out  # two configs could not be imported: the exit status says so
    ids = {name: ImportedConfig.objects.get(origin_config_id=origin[name].pk).trigger_id for name in IMPORTED}
    for name in IMPORTED:
        assert f"config {origin[name].pk} -> trigger {ids[name]}: created" in out
        assert _definition(client.get_trigger(ids[name])) == _expected(origin[name]), name
    assert _all_trigger_ids(client) - before == {ids[n] for n in IMPORTED}
    assert set(ImportedConfig.objects.values_list("origin_config_id", flat=True)) == {origin[n].pk for n in IMPORTED}

    bad = origin["unknown_broker"]
    queue = bad.message_broker_queues.get()
    assert f"config {bad.pk}: failed" in out
    assert (f"msg_broker_queues[0].name: must name a broker in the config (orders, aws_lambda_fn) "
            f"(origin MessageBrokerQueue {queue.pk})") in out
    no_function = origin["unknown_function"]
    action = no_function.actions.get()
    assert f"config {no_function.pk}: failed" in out
    assert (f"msg_broker_queues[1].name: must name a broker in the config (orders, aws_lambda_fn) "
            f"(origin Action {action.pk})") in out
    assert out.strip().splitlines()[-1] == "created 4, not carried over 0, failed 2"

    out, error = _import()  # the second run: nothing new
    assert error is not None
    assert _all_trigger_ids(client) - before == {ids[n] for n in IMPORTED}
    for name in IMPORTED:
        assert f"config {origin[name].pk} -> trigger {ids[name]}: already imported" in out
    assert out.strip().splitlines()[-1] == "already imported 4, not carried over 0, failed 2"


def test_lambda_actions_become_entries_naming_the_service_s_lambda_broker_after_the_queues(origin, client) -> None:
    config = origin["lambda"]
    thumbnail = config.actions.order_by("id")[1]  # the row with conn_details and timeout_secs

    out, _ = _import()

    assert f"config {config.pk} -> trigger " in out
    trigger = client.get_trigger(ImportedConfig.objects.get(origin_config_id=config.pk).trigger_id)
    first, *lambdas = trigger["msg_broker_queues"]
    assert first == {"name": "orders", "parameters": {"queue": "resized"}}  # the queue row, written after the actions
    assert len(lambdas) == 3
    for entry in lambdas:
        assert entry["name"] == "aws_lambda_fn"
    # The origin sent json.dumps(payload) as the event: json_string gives the function the same string.
    assert lambdas[0] == {"name": "aws_lambda_fn", "parameters": {"FunctionName": "resize", "payload_encoding": "json_string"}}
    assert lambdas[1]["parameters"] == {"FunctionName": "thumbnail", "InvocationType": "Event", "payload_encoding": "json_string"}
    assert lambdas[1]["conn_details"] == thumbnail.conn_details == {"region_name": "eu-west-1"}
    assert lambdas[1]["timeout_secs"] == thumbnail.timeout_secs == 4.5
    assert "conn_details" not in lambdas[0] and "timeout_secs" not in lambdas[0]
    # A row that says its own encoding keeps it.
    assert lambdas[2]["parameters"] == {"FunctionName": "audit", "payload_encoding": "json"}


def _planned(out: str, config: Config) -> tuple[dict[str, Any], list[str]]:
    """The dry run's body for one config and the lines it prints under it."""
    lines = out.splitlines()
    head = f"config {config.pk}: would create "
    at = next(i for i, line in enumerate(lines) if line.startswith(head))
    notes = itertools.takewhile(lambda line: line.startswith("  "), lines[at + 1:])
    return json.loads(lines[at][len(head):]), [line.strip() for line in notes]


def test_dry_run_prints_the_plan_and_creates_nothing(origin, client) -> None:
    before = _all_trigger_ids(client)

    out, error = _import("--dry-run")

    assert error is None, out  # nothing failed or was left out: the dry run asks the service nothing
    assert _all_trigger_ids(client) == before
    full = origin["full"]
    assert f"config {full.pk}: would create " in out
    assert not ImportedConfig.objects.exists()
    assert f'"url": "{full.webhooks.order_by("id").first().url}"' in out
    assert out.strip().splitlines()[-1] == "dry run: would create 6, not carried over 0, failed 0"


def test_the_dry_run_shows_lambda_entries_with_conn_details_masked_and_the_broker_they_need(origin) -> None:
    out, _ = _import("--dry-run")

    body, notes = _planned(out, origin["lambda"])
    queue, resize, thumbnail, audit = body["msg_broker_queues"]
    assert queue["name"] == "orders"
    assert resize == {"name": "aws_lambda_fn", "parameters": {"FunctionName": "resize", "payload_encoding": "json_string"}}
    assert thumbnail["name"] == "aws_lambda_fn"
    assert thumbnail["parameters"] == {"FunctionName": "thumbnail", "InvocationType": "Event", "payload_encoding": "json_string"}
    assert thumbnail["conn_details"] == {"region_name": "***"}
    assert thumbnail["timeout_secs"] == 4.5
    assert audit["parameters"] == {"FunctionName": "audit", "payload_encoding": "json"}
    assert "eu-west-1" not in out
    needs = [n for n in notes if n.startswith("origin action 'aws_lambda_fn'")]
    assert needs == ["origin action 'aws_lambda_fn' needs the service's brokers.aws_lambda_fn with broker_type: aws_lambda "
                     "(the origin's ACTION_TRIGGERS[\"actions\"][\"aws_lambda_fn\"], action_type becoming broker_type, "
                     "the same conn_details with region and credentials, which the service never reads from its environment, "
                     "params kept); "
                     "its trigger_overrides must list what the Action rows set: conn_details region_name; "
                     "parameters FunctionName, InvocationType, payload_encoding"]
    _, without_actions = _planned(out, origin["full"])
    assert not [n for n in without_actions if n.startswith("origin action")]


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
                                                 for n in ("full", "queue_only", "lambda")}
