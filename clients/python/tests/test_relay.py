"""The relay: rows left unsent, rows refused, rows sent twice, a relay killed mid-batch, and the
service stopped for 30 s while the app saves."""
from __future__ import annotations

import collections
import os
import signal
import subprocess
import threading
import time
import uuid
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from django.test import override_settings
from django.utils import timezone

from action_triggers_client.django.models import Emitter, OutboxSignal, signal_id
from action_triggers_client.django.after_commit import flush_sender
from conftest import envelope_for, manage, relay_env
from ports import free_port
from shop.models import Customer, Order


def _with(**overrides):
    return override_settings(ACTION_TRIGGERS_CLIENT={**settings.ACTION_TRIGGERS_CLIENT, **overrides})


def _customer(name: str | None = None) -> Customer:
    name = name or f"cust-{uuid.uuid4().hex[:10]}"
    return Customer.objects.create(name=name, email=f"{name}@example.org")


def test_relay_once_delivers_rows_left_unsent(triggers, receiver, capsys) -> None:
    with _with(SEND_ON_COMMIT=False):
        with transaction.atomic():
            customer = _customer()
            order = Order.objects.create(customer=customer, total=Decimal("3.00"))
        assert OutboxSignal.objects.filter(state="pending").count() == 4
        time.sleep(0.5)
        assert receiver.matching(envelope_for(receiver, "customer", "post_save", "name", customer.name)) == []
        call_command("action_triggers_relay", "--once")
    assert "sent 4, failed 0" in capsys.readouterr().out
    assert not OutboxSignal.objects.exists()
    [t] = receiver.wait_for(lambda r: r["path"] == "/templated" and r["body"].get("order") == order.id)
    assert t["body"]["customer"] == customer.name


def test_rows_written_while_the_service_is_unreachable_are_sent_by_the_relay(triggers, receiver) -> None:
    with _with(BASE_URL=f"http://127.0.0.1:{free_port()}"):
        customer = _customer()
        assert flush_sender()  # the sender after commit tried, in its thread, and failed
        rows = list(OutboxSignal.objects.all())
        assert len(rows) == 2 and all(r.state == "pending" and r.attempts == 1 and "refused" in r.last_error.lower() for r in rows)
        with pytest.raises(CommandError, match="unavailable"):
            call_command("action_triggers_relay", "--once")
        assert OutboxSignal.objects.filter(state="pending").count() == 2
    call_command("action_triggers_relay", "--once")
    assert not OutboxSignal.objects.exists()
    assert receiver.wait_for(envelope_for(receiver, "customer", "post_save", "name", customer.name))


def test_a_save_returns_while_the_sender_after_commit_still_waits_for_the_service() -> None:
    """The rows are durable at commit; sending them is the sender thread's work, not the request's."""
    arrived, release, answered = threading.Event(), threading.Event(), threading.Event()

    class HeldService(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            arrived.set()
            release.wait(30)
            self.send_response(503)
            self.send_header("content-length", "0")
            self.end_headers()
            answered.set()

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), HeldService)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    before = OutboxSignal.objects.order_by("-id").values_list("id", flat=True).first() or 0
    try:
        with _with(BASE_URL=f"http://127.0.0.1:{server.server_address[1]}"):
            customer = _customer()
            # save() has returned, and the service has not answered yet: it holds the request.
            assert not answered.is_set()
            assert arrived.wait(10)
            rows = OutboxSignal.objects.filter(instance_pk=str(customer.pk))
            assert [r.state for r in rows] == ["pending"]
            release.set()
            assert flush_sender(60)
    finally:
        release.set()
        server.shutdown()
        server.server_close()
        OutboxSignal.objects.filter(id__gt=before).delete()  # left pending: the relay tests count what they send


def test_refused_rows_are_kept_as_failed_and_do_not_block_the_rest(triggers, receiver, capsys) -> None:
    with _with(SEND_ON_COMMIT=False):
        before = _customer()
        with transaction.atomic():
            big = Order.objects.create(customer=before, total=Decimal("1.00"), note="x" * 300_000)
        # A row the service refuses whatever the database (PostgreSQL enforces column lengths).
        bad = OutboxSignal.objects.create(signal="post_migrate", app_label="shop", model_name="customer",
                                          instance={"id": 1}, occurred_at=timezone.now())
        after = _customer()
        call_command("action_triggers_relay", "--once")
    assert "sent 4, failed 3" in capsys.readouterr().out
    failed = {r.id: r for r in OutboxSignal.objects.all()}
    assert set(failed) == {r.id for r in failed.values() if r.state == "failed"} and len(failed) == 3
    assert "signal: must be one of" in failed[bad.id].last_error
    big_rows = [r for r in failed.values() if r.model_name == "order"]
    assert len(big_rows) == 2 and all("instance: makes the signal" in r.last_error and r.last_error.startswith("400") for r in big_rows)
    for c in (before, after):
        assert receiver.wait_for(envelope_for(receiver, "customer", "post_save", "name", c.name))
    assert receiver.matching(lambda r: r["body"].get("order") == big.id) == []
    # Failed rows stay out of the way of later runs.
    call_command("action_triggers_relay", "--once")
    assert "sent 0, failed 0" in capsys.readouterr().out


def test_a_row_sent_twice_is_one_dispatch(triggers, receiver) -> None:
    with _with(SEND_ON_COMMIT=False, KEEP_SENT=3600):
        customer = _customer()
        call_command("action_triggers_relay", "--once")
        row = OutboxSignal.objects.get(signal="post_save")
        assert row.state == "sent" and row.sent_at is not None
        sid = signal_id(Emitter.objects.get().name, row.id, row.token)
        assert receiver.wait_for(lambda r: r["headers"].get("webhook-id", "").startswith(sid + "."))
        OutboxSignal.objects.filter(id=row.id).update(state="pending")  # as after a crash before marking it
        call_command("action_triggers_relay", "--once")
        assert OutboxSignal.objects.get(id=row.id).state == "sent"
    time.sleep(2)
    hooks = receiver.matching(lambda r: r["headers"].get("webhook-id", "").startswith(sid + "."))
    assert len(hooks) == 1 and hooks[0]["body"]["instance"]["name"] == customer.name


def test_relay_process_runs_until_sigterm(triggers, receiver, tmp_path) -> None:
    log = (tmp_path / "relay.log").open("w")
    proc = subprocess.Popen(manage("action_triggers_relay", "--min-age", "0"), env=relay_env(ATC_SEND_ON_COMMIT="0"),
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        with _with(SEND_ON_COMMIT=False):
            customers = [_customer() for _ in range(3)]
        for c in customers:
            assert receiver.wait_for(envelope_for(receiver, "customer", "post_save", "name", c.name))
        deadline = time.monotonic() + 10
        while OutboxSignal.objects.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not OutboxSignal.objects.exists()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    assert "stopped" in (tmp_path / "relay.log").read_text()


def test_a_relay_killed_mid_batch_then_restarted_delivers_every_save_once(triggers, receiver, tmp_path) -> None:
    count = 1000
    prefix = f"kill-{uuid.uuid4().hex[:6]}-"
    with _with(SEND_ON_COMMIT=False):
        with transaction.atomic():
            for i in range(count):
                _customer(f"{prefix}{i}")
    assert OutboxSignal.objects.count() == 2 * count
    env = relay_env(ATC_SEND_ON_COMMIT="0", ATC_BATCH_SIZE="10")
    first = subprocess.Popen(manage("action_triggers_relay", "--min-age", "0"), env=env,
                             stdout=(tmp_path / "relay-1.log").open("w"), stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while OutboxSignal.objects.count() > count and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(first.pid, signal.SIGKILL)  # somewhere in the middle, between a request and marking its rows
    finally:
        first.wait(timeout=10)
    left = OutboxSignal.objects.count()
    assert 0 < left < 2 * count
    second = subprocess.run(manage("action_triggers_relay", "--once"), env=env, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0, second.stdout + second.stderr
    assert not OutboxSignal.objects.exists()

    def ours(r) -> bool:
        return r["path"] == "/envelope" and str(r["body"]["instance"].get("name", "")).startswith(prefix)
    _assert_each_save_delivered_once(receiver, ours, 2 * count)


def _assert_each_save_delivered_once(receiver, ours, expected: int) -> None:
    """Once per save, counted by `webhook-id` (the delivery's idempotency key): a slow answer may
    make the service retry an attempt the receiver already got, with the same id."""
    receiver.wait_for(ours, count=expected, timeout=180, key=lambda r: r["headers"]["webhook-id"])
    time.sleep(1)  # anything dispatched twice would show up by now
    by_id: dict[str, set[tuple[str, str]]] = collections.defaultdict(set)
    for r in receiver.matching(ours):
        by_id[r["headers"]["webhook-id"]].add((r["body"]["signal"], r["body"]["instance"]["name"]))
    assert len(by_id) == expected and all(len(saves) == 1 for saves in by_id.values())
    assert len(set().union(*by_id.values())) == expected


def test_saves_made_while_the_service_is_down_for_30_s_all_arrive_once_it_is_back(service, triggers, receiver) -> None:
    count, outage_s = 500, 30
    prefix = f"outage-{uuid.uuid4().hex[:6]}-"
    service.stop()
    try:
        started = time.monotonic()
        for i in range(count):
            _customer(f"{prefix}{i}")  # committed; the send after commit finds nobody listening
            time.sleep(max(0.0, started + (i + 1) * outage_s / count - time.monotonic()))
        assert time.monotonic() - started >= outage_s
        assert Customer.objects.filter(name__startswith=prefix).count() == count
        # The sender after commit marks its failed tries from its own thread: the last saves' too.
        assert flush_sender(timeout=30)
        assert OutboxSignal.objects.filter(state="pending", attempts__gte=1).count() == 2 * count
    finally:
        service.start()
    call_command("action_triggers_relay", "--once")
    assert not OutboxSignal.objects.exists()

    def ours(r) -> bool:
        return r["path"] == "/envelope" and str(r["body"]["instance"].get("name", "")).startswith(prefix)
    _assert_each_save_delivered_once(receiver, ours, 2 * count)
