"""Trigger conditions (docs/conditions.md) over the real service: a transition condition fires once
for the one save that makes the transition, when the app sends the instance's previous state
(``SEND_PREVIOUS``), and never without it, the signal's status saying why. ``previous`` is the
stored row serialised like the instance, so what the instance leaves out it leaves out too."""
from __future__ import annotations

import json
import sqlite3
import subprocess
import threading
import time
import uuid
from decimal import Decimal
from typing import Any, Iterator

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ImproperlyConfigured
from django.db import connection, transaction
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from action_triggers_client.client import ActionTriggersClient, ProblemError
from action_triggers_client.django import checks, conf
from action_triggers_client.django.after_commit import flush_sender
from action_triggers_client.django.models import Emitter, OutboxSignal, signal_id
from conftest import manage, relay_env
from shop.models import Customer, Order, Tag

PAID = {"instance.status": {"$changed": {"from": "pending", "to": "paid"}}}
STATUSES = ["pending", "pending", "paid", "paid", "refunded"]  # the first is the creation


def _with(**overrides: Any):
    # Rows are kept once sent, so the test can name their signals.
    return override_settings(ACTION_TRIGGERS_CLIENT={**settings.ACTION_TRIGGERS_CLIENT, "KEEP_SENT": 3600, **overrides})


def _customer() -> Customer:
    name = f"cond-{uuid.uuid4().hex[:10]}"
    return Customer.objects.create(name=name, email=f"{name}@example.org")


@pytest.fixture
def paid_trigger(client: ActionTriggersClient, receiver) -> Iterator[tuple[dict[str, Any], str]]:
    """A trigger on shop.order's post_save that fires when an order goes from pending to paid."""
    path = f"/paid-{uuid.uuid4().hex[:8]}"
    trigger = client.create_trigger({
        "config_signals": [{"signal": "post_save"}],
        "content_types": [{"app_label": "shop", "model_name": "order"}],
        "webhooks": [{"url": f"{receiver.url}{path}", "http_method": "POST"}],
        "active": True,
        "condition": PAID,
        "payload": {"order": "{{ instance.id }}", "from": "{{ previous.status }}", "to": "{{ instance.status }}"},
    })
    try:
        yield trigger, path
    finally:
        client.delete_trigger(trigger["id"])


def _save_through_the_statuses() -> Order:
    order = Order.objects.create(customer=_customer(), total=Decimal("30.00"), status=STATUSES[0])
    for status in STATUSES[1:]:
        with transaction.atomic():
            order.status = status
            order.save()
    assert flush_sender(10)
    return order


def _post_saves(order: Order) -> list[OutboxSignal]:
    rows = list(OutboxSignal.objects.filter(model_name="order", signal="post_save", instance_pk=str(order.pk)).order_by("id"))
    assert len(rows) == len(STATUSES) and all(r.state == "sent" for r in rows), [(r.state, r.last_error) for r in rows]
    return rows


def _status(client: ActionTriggersClient, row: OutboxSignal) -> dict[str, Any]:
    sid = signal_id(Emitter.name_for("default"), row.id, row.token)
    deadline = time.monotonic() + 10
    while True:
        try:
            return client.signal_status(sid)
        except ProblemError as e:
            if e.status != 404 or time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _false_for(status: dict[str, Any], trigger: dict[str, Any]) -> dict[str, Any] | None:
    found = [n for n in status.get("not_matched", []) if n["trigger_id"] == trigger["id"]]
    assert len(found) <= 1
    return found[0] if found else None


def test_with_send_previous_a_transition_condition_fires_once_for_the_paid_save(client, receiver, paid_trigger) -> None:
    trigger, path = paid_trigger
    assert client.get_trigger(trigger["id"])["condition"] == PAID
    with _with(SEND_PREVIOUS=["shop.order"]):
        order = _save_through_the_statuses()
    rows = _post_saves(order)
    # What each post_save carried: no previous for the creation, then the stored row before each save.
    assert rows[0].previous is None
    assert [r.previous["status"] for r in rows[1:]] == STATUSES[:-1]
    assert [r.instance["status"] for r in rows] == STATUSES

    [delivered] = receiver.wait_for(lambda r: r["path"] == path)
    assert delivered["body"] == {"order": order.id, "from": "pending", "to": "paid"}
    assert delivered["headers"]["webhook-id"].endswith(f".{trigger['id']}.w0")
    for i, row in enumerate(rows):
        status = _status(client, row)
        false = _false_for(status, trigger)
        if i == 2:  # pending -> paid
            assert false is None
            continue
        assert false is not None, status
        assert false["reason"] == "condition_false" and false["clause"] == "condition.instance.status.$changed"
        if i == 0:
            assert "no previous state" in false["detail"]
        else:
            assert false["detail"] == 'instance.status did not change from "pending" to "paid"'
    # The other four were never dispatched for this trigger: the one delivery is all there is.
    time.sleep(1)
    assert len(receiver.matching(lambda r: r["path"] == path)) == 1


def test_without_send_previous_the_same_saves_fire_nothing_and_the_status_says_why(client, receiver, paid_trigger) -> None:
    trigger, path = paid_trigger
    with _with():  # SEND_PREVIOUS unset: no model sends previous
        order = _save_through_the_statuses()
    rows = _post_saves(order)
    assert all(r.previous is None for r in rows)
    for row in rows:
        false = _false_for(_status(client, row), trigger)
        assert false is not None and false["reason"] == "condition_false"
        assert false["clause"] == "condition.instance.status.$changed"
        assert "no previous state" in false["detail"], false
    time.sleep(1)
    assert receiver.matching(lambda r: r["path"] == path) == []


def test_send_previous_unset_adds_no_query_and_set_adds_one_read_of_the_stored_row() -> None:
    def order_reads(**overrides: Any) -> list[str]:
        with _with(SEND_ON_COMMIT=False, **overrides):
            order = Order.objects.create(customer=_customer(), total=Decimal("1.00"))
            order.status = "paid"
            with CaptureQueriesContext(connection) as seen, transaction.atomic():
                order.save()
        return [q["sql"] for q in seen.captured_queries if q["sql"].startswith("SELECT") and '"shop_order"' in q["sql"]]

    assert order_reads() == []
    assert order_reads(SEND_PREVIOUS=[]) == []
    [read] = order_reads(SEND_PREVIOUS=["shop.order"])
    assert 'FROM "shop_order"' in read
    # An unlisted model (shop.tag) is never read, even with True.
    with _with(SEND_ON_COMMIT=False, SEND_PREVIOUS=True):
        tag = Tag.objects.create(name="t")
        tag.name = "u"
        with CaptureQueriesContext(connection) as seen:
            tag.save()
    assert [q["sql"] for q in seen.captured_queries if q["sql"].startswith("SELECT") and '"shop_tag"' in q["sql"]] == []


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's locks")
def test_on_sqlite_a_save_that_reads_the_stored_row_waits_for_another_writer_instead_of_failing() -> None:
    # A transaction that reads and then writes may not wait for SQLite's write lock ("database is
    # locked" at once): the app takes it first, so the save waits for the other writer as any would.
    order = Order.objects.create(customer=_customer(), total=Decimal("4.00"))
    other = sqlite3.connect(settings.DATABASES["default"]["NAME"], isolation_level=None, timeout=30, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # another connection holds the write lock for 0.5 s
    release = threading.Timer(0.5, other.execute, ["COMMIT"])
    release.start()
    try:
        with _with(SEND_ON_COMMIT=False, SEND_PREVIOUS=["shop.order"]):
            started = time.monotonic()
            with transaction.atomic():
                order.status = "paid"
                order.save()
            waited = time.monotonic() - started
    finally:
        release.join()
        other.close()
    assert waited >= 0.4
    [_, row] = _post_saves_of(order)
    assert row.previous["status"] == "pending" and row.instance["status"] == "paid"


def test_previous_is_serialised_like_the_instance_expanded_relations_included(client, receiver) -> None:
    path = f"/moved-{uuid.uuid4().hex[:8]}"
    trigger = client.create_trigger({
        "config_signals": [{"signal": "post_save"}], "content_types": [{"app_label": "shop", "model_name": "order"}],
        "webhooks": [{"url": f"{receiver.url}{path}", "http_method": "POST"}], "active": True,
        "condition": {"instance.customer.id": {"$changed": True}}})  # no payload: the envelope, previous in it
    try:
        first, second = _customer(), _customer()
        with _with(SEND_PREVIOUS=True):  # True: every model whose post_save is sent
            order = Order.objects.create(customer=first, total=Decimal("5.00"), note="before")
            order.customer, order.note = second, "after"
            order.save()
            assert flush_sender(10)
        created, moved = _post_saves_of(order)
        assert created.previous is None
        assert set(moved.previous) == set(moved.instance)
        assert moved.previous["customer"] == {"id": first.id, "pk": first.id, "name": first.name, "email": first.email,
                                              "joined": None}
        assert moved.previous["note"] == "before" and moved.instance["note"] == "after"
        [env] = receiver.wait_for(lambda r: r["path"] == path)
        assert env["body"]["previous"] == moved.previous and env["body"]["instance"] == moved.instance
        assert env["body"]["previous"]["customer"]["name"] == first.name
        assert env["body"]["instance"]["customer"]["name"] == second.name
    finally:
        client.delete_trigger(trigger["id"])


def _post_saves_of(order: Order) -> list[OutboxSignal]:
    return list(OutboxSignal.objects.filter(model_name="order", signal="post_save", instance_pk=str(order.pk)).order_by("id"))


def test_a_creation_sends_no_previous_also_with_a_primary_key_set(client, receiver) -> None:
    path = f"/created-{uuid.uuid4().hex[:8]}"
    trigger = client.create_trigger({
        "config_signals": [{"signal": "post_save"}], "content_types": [{"app_label": "shop", "model_name": "order"}],
        "webhooks": [{"url": f"{receiver.url}{path}", "http_method": "POST"}], "active": True})
    try:
        with _with(SEND_PREVIOUS=["shop.order"]):
            made = Order.objects.create(customer=_customer(), total=Decimal("2.00"))
            chosen = Order(pk=made.pk + 1000, customer=made.customer, total=Decimal("3.00"))  # a pk, but no stored row
            chosen.save()
            assert flush_sender(10)
        for order in (made, chosen):
            [row] = _post_saves_of(order)
            assert row.previous is None
        bodies = [r["body"] for r in receiver.wait_for(lambda r: r["path"] == path, count=2)]
        assert sorted(b["instance"]["id"] for b in bodies) == [made.pk, made.pk + 1000]
        assert all("previous" not in b for b in bodies)
    finally:
        client.delete_trigger(trigger["id"])


def test_previous_never_carries_a_field_the_instance_leaves_out(client, receiver, service) -> None:
    path = f"/user-prev-{uuid.uuid4().hex[:8]}"
    trigger = client.create_trigger({
        "config_signals": [{"signal": "post_save"}], "content_types": [{"app_label": "auth", "model_name": "user"}],
        "webhooks": [{"url": f"{receiver.url}{path}", "http_method": "POST"}], "active": True,
        "condition": {"instance.email": {"$changed": True}}})
    try:
        name = f"prev-{uuid.uuid4().hex[:8]}"
        with _with(CONTENT_TYPES={"auth.user": ["post_save"]}, SEND_PREVIOUS=["auth.user"]):
            user = User.objects.create_user(username=name, password="s3cret-prev", email=f"{name}@example.org")
            user.email = f"{name}@example.com"
            user.set_password("s3cret-next")
            user.save()
            assert flush_sender(10)
        [created, updated] = OutboxSignal.objects.filter(model_name="user", instance_pk=str(user.pk)).order_by("id")
        assert created.previous is None
        assert updated.previous["email"] == f"{name}@example.org" and updated.instance["email"] == f"{name}@example.com"
        assert "password" not in updated.previous and "password" not in updated.instance
        assert set(updated.previous) == set(updated.instance)
        [env] = receiver.wait_for(lambda r: r["path"] == path)
        assert env["body"]["previous"]["username"] == name and "password" not in env["body"]["previous"]
        assert "pbkdf2" not in json.dumps(env["body"])
        # Nor does the service store it: its events of this user hold no hash.
        assert "pbkdf2" not in _service_events(service, name)
    finally:
        client.delete_trigger(trigger["id"])


def _service_events(service, text: str) -> str:
    db = sqlite3.connect(f"file:{service.data_dir / 'events.sqlite'}?mode=ro", uri=True, timeout=10)
    try:
        rows = db.execute("SELECT data FROM events WHERE data LIKE ?", (f"%{text}%",)).fetchall()
    finally:
        db.close()
    assert rows
    return "\n".join(r[0] for r in rows)


def test_the_plain_client_sends_previous_single_and_batched(client, receiver) -> None:
    model = f"m{uuid.uuid4().hex[:8]}"
    path = f"/plain-{model}"
    trigger = client.create_trigger({
        "config_signals": [{"signal": "post_save"}], "content_types": [{"app_label": "crud", "model_name": model}],
        "webhooks": [{"url": f"{receiver.url}{path}", "http_method": "POST"}], "active": True, "condition": PAID,
        "payload": {"id": "{{ instance.id }}", "was": "{{ previous.status }}"}})
    try:
        base = {"signal": "post_save", "app_label": "crud", "model_name": model}
        client.emit({**base, "instance": {"id": 1, "status": "paid"}, "previous": {"id": 1, "status": "pending"}})
        client.emit({**base, "instance": {"id": 2, "status": "paid"}, "previous": None})  # None: left out
        client.emit_many([{**base, "instance": {"id": 3, "status": "paid"}, "previous": {"id": 3, "status": "pending"}},
                          {**base, "instance": {"id": 4, "status": "paid"}, "previous": {"id": 4, "status": "paid"}}])
        got = receiver.wait_for(lambda r: r["path"] == path, count=2)
        assert sorted(r["body"]["id"] for r in got) == [1, 3] and all(r["body"]["was"] == "pending" for r in got)
        with pytest.raises(ProblemError) as refused:
            client.emit_many([{**base, "instance": {"id": 5}}, {**base, "instance": {"id": 6}, "previous": ["not", "an", "object"]}])
        assert [e.path for e in refused.value.errors] == ["[1].previous"]
        # A merge patch with condition None removes it.
        assert "condition" not in client.patch_trigger(trigger["id"], {"condition": None})
    finally:
        client.delete_trigger(trigger["id"])
    time.sleep(0.5)
    assert sorted(r["body"]["id"] for r in receiver.matching(lambda r: r["path"] == path)) == [1, 3]


def _messages(**overrides: Any) -> list[tuple[str, str]]:
    with override_settings(ACTION_TRIGGERS_CLIENT={**settings.ACTION_TRIGGERS_CLIENT, **overrides}):
        return [(m.id, f"{m.msg} HINT: {m.hint}") for m in checks.check_settings() if "SEND_PREVIOUS" in m.msg]


def test_checks_name_models_in_send_previous_that_do_not_exist_or_do_not_send_post_save() -> None:
    assert _messages(SEND_PREVIOUS=["shop.order", "auth.user"], CONTENT_TYPES=["shop.order", "auth.user"]) == []
    assert _messages(SEND_PREVIOUS=True) == []
    [(unknown_id, unknown), (unsent_id, unsent)] = _messages(SEND_PREVIOUS=["shop.orders", "shop.tag"])
    assert unknown_id == "action_triggers_client.E007"
    assert "SEND_PREVIOUS'] names 'shop.orders', which is no installed model" in unknown
    assert "did you mean 'shop.order'? models of app 'shop': customer, order, profile, tag" in unknown
    assert unsent_id == "action_triggers_client.E008"
    assert "names 'shop.tag', whose post_save is not sent (CONTENT_TYPES does not list it)" in unsent
    [(only_id, only)] = _messages(SEND_PREVIOUS=["shop.order"], CONTENT_TYPES={"shop.order": ["pre_save", "post_delete"]})
    assert only_id == "action_triggers_client.E008" and "(CONTENT_TYPES sends only pre_save, post_delete of it)" in only
    [(own_id, own)] = _messages(SEND_PREVIOUS=["action_triggers_client.outboxsignal"], CONTENT_TYPES="__all__")
    assert own_id == "action_triggers_client.E008" and "this app's own models are never sent" in own


@pytest.mark.parametrize("value", ["shop.order", {"shop.order": True}, 1, ["shop"], [None]])
def test_a_malformed_send_previous_stops_the_start_naming_the_key(value: Any) -> None:
    with override_settings(ACTION_TRIGGERS_CLIENT={**settings.ACTION_TRIGGERS_CLIENT, "SEND_PREVIOUS": value}):
        with pytest.raises(ImproperlyConfigured, match=r"ACTION_TRIGGERS_CLIENT\['SEND_PREVIOUS'\]"):
            conf.settings()
    conf.settings()  # the test project's own settings again


def test_bad_send_previous_stops_manage_py_check(tmp_path) -> None:
    for name, value in (("typo", "['shop.orders', 'shop.tag']"), ("malformed", "'shop.order'")):
        (tmp_path / f"{name}_settings.py").write_text(
            "from testproject.settings import *  # noqa\n"
            f"ACTION_TRIGGERS_CLIENT = {{**ACTION_TRIGGERS_CLIENT, 'SEND_PREVIOUS': {value}}}\n")
    env = lambda name: relay_env(DJANGO_SETTINGS_MODULE=f"{name}_settings", PYTHONPATH=f"{tmp_path}:{relay_env()['PYTHONPATH']}")  # noqa: E731
    typo = subprocess.run(manage("check"), env=env("typo"), capture_output=True, text=True, timeout=60)
    assert typo.returncode != 0
    assert "action_triggers_client.E007" in typo.stderr and "did you mean 'shop.order'?" in typo.stderr
    assert "action_triggers_client.E008" in typo.stderr and "'shop.tag', whose post_save is not sent" in typo.stderr
    malformed = subprocess.run(manage("check"), env=env("malformed"), capture_output=True, text=True, timeout=60)
    assert malformed.returncode != 0
    assert "ACTION_TRIGGERS_CLIENT['SEND_PREVIOUS'] must be a list of 'app_label.model_name'" in malformed.stderr
