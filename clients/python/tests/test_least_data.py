"""Nothing leaves the app that its settings do not choose: no model unless listed, no field that
holds a secret unless named, and what the service does not need (the instance of a signal that
matches no trigger) it does not keep. Typos in the settings stop Django's checks, named."""
from __future__ import annotations

import json
import sqlite3
import subprocess
import time
import uuid
from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.db import transaction
from django.test import override_settings

from action_triggers_client.django.after_commit import flush_sender
from action_triggers_client.django.models import Emitter, OutboxSignal, signal_id
from conftest import manage, relay_env


def _with(**overrides: Any):
    return override_settings(ACTION_TRIGGERS_CLIENT={**settings.ACTION_TRIGGERS_CLIENT, **overrides})


def _without_content_types():
    rest = {k: v for k, v in settings.ACTION_TRIGGERS_CLIENT.items() if k != "CONTENT_TYPES"}
    return override_settings(ACTION_TRIGGERS_CLIENT=rest)


def _stored_events(service, text: str) -> list[dict[str, Any]]:
    """The service's own event store (a SQLite file in its data dir), read directly."""
    db = sqlite3.connect(f"file:{service.data_dir / 'events.sqlite'}?mode=ro", uri=True, timeout=10)
    try:
        rows = db.execute("SELECT stream_id, data FROM events WHERE data LIKE ?", (f"%{text}%",)).fetchall()
    finally:
        db.close()
    return [{"stream_id": s, "data": json.loads(d)} for s, d in rows]


def test_with_content_types_unset_a_user_saved_sends_nothing_and_the_service_stores_nothing(service) -> None:
    name = f"least-{uuid.uuid4().hex[:8]}"
    with _without_content_types():
        User.objects.create_user(username=name, password="correct horse battery staple", email=f"{name}@example.org")
        Group.objects.create(name=name)
        assert flush_sender(10)
        assert not OutboxSignal.objects.exists()
        call_command("action_triggers_relay", "--once")
    time.sleep(0.5)
    assert _stored_events(service, name) == []
    assert _stored_events(service, "pbkdf2_sha256") == []


def test_unset_content_types_is_said_at_start(tmp_path) -> None:
    settings_file = tmp_path / "unset_settings.py"
    settings_file.write_text("from testproject.settings import *  # noqa\n"
                             "ACTION_TRIGGERS_CLIENT = {k: v for k, v in ACTION_TRIGGERS_CLIENT.items() if k != 'CONTENT_TYPES'}\n")
    env = relay_env(DJANGO_SETTINGS_MODULE="unset_settings", PYTHONPATH=f"{tmp_path}:{relay_env()['PYTHONPATH']}")
    done = subprocess.run(manage("check"), env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "action_triggers_client.W001" in done.stderr and "CONTENT_TYPES'] is not set: no model's changes are sent" in done.stderr


def test_a_listed_model_s_secret_fields_stay_home_unless_named(service, client, receiver) -> None:
    trigger = client.create_trigger({
        "config_signals": [{"signal": "post_save"}], "content_types": [{"app_label": "auth", "model_name": "user"}],
        "webhooks": [{"url": f"{receiver.url}/users", "http_method": "POST"}], "active": True})
    try:
        plain, named = f"least-{uuid.uuid4().hex[:8]}", f"least-{uuid.uuid4().hex[:8]}"
        with _with(CONTENT_TYPES={"auth.user": ["post_save"]}):
            User.objects.create_user(username=plain, password="s3cret-one", email=f"{plain}@example.org")
            with _with(CONTENT_TYPES={"auth.user": ["post_save"]}, SEND_SECRET_FIELDS={"auth.user": ["password"]}):
                User.objects.create_user(username=named, password="s3cret-two", email=f"{named}@example.org")
            assert flush_sender(10)
        bodies = {r["body"]["instance"]["username"]: r["body"]["instance"]
                  for r in receiver.wait_for(lambda r: r["path"] == "/users", count=2)}
        assert "password" not in bodies[plain] and bodies[plain]["email"] == f"{plain}@example.org"
        assert bodies[named]["password"].startswith("pbkdf2_sha256$")
        # Only the signals the model lists: post_save, no pre_save.
        assert all(r["body"]["signal"] == "post_save" for r in receiver.matching(lambda r: r["path"] == "/users"))
    finally:
        client.delete_trigger(trigger["id"])


def test_a_signal_that_matches_no_trigger_is_stored_without_its_instance(service) -> None:
    name = f"least-{uuid.uuid4().hex[:8]}"
    with _with(CONTENT_TYPES=["auth.group"]):  # no trigger watches auth.group
        # Read the rows inside the transaction: once it commits, the sender may send and delete them.
        with transaction.atomic():
            group = Group.objects.create(name=name)
            row_ids = list(OutboxSignal.objects.order_by("id").values_list("id", "token"))
        assert row_ids and flush_sender(10)
    emitter = Emitter.objects.get().name
    ids = [signal_id(emitter, row_id, token) for row_id, token in row_ids]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and len(_stored_events(service, ids[-1])) == 0:
        time.sleep(0.1)
    for sid in ids:
        [event] = [e for e in _stored_events(service, sid) if e["stream_id"] == f"signal-{sid}"]
        assert event["data"]["instance_dropped"] is True
        assert event["data"]["signal"]["instance"] == {}
        assert event["data"]["signal"]["model_name"] == "group" and event["data"]["not_matched"] == []
    assert _stored_events(service, name) == [] and group.pk


def test_typos_in_content_types_and_expand_stop_django_s_checks_naming_them(tmp_path) -> None:
    settings_file = tmp_path / "typo_settings.py"
    settings_file.write_text("from testproject.settings import *  # noqa\n"
                             "ACTION_TRIGGERS_CLIENT = {**ACTION_TRIGGERS_CLIENT, 'CONTENT_TYPES': ['shop.orders', 'shop.customer'],\n"
                             "                          'EXPAND': {'shop.order': ['custmer']}}\n")
    env = relay_env(DJANGO_SETTINGS_MODULE="typo_settings", PYTHONPATH=f"{tmp_path}:{relay_env()['PYTHONPATH']}")
    for command in (["check"], ["action_triggers_relay", "--once"]):
        done = subprocess.run(manage(*command), env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode != 0
        assert "CONTENT_TYPES'] names 'shop.orders', which is no installed model" in done.stderr
        assert "did you mean 'shop.order'? models of app 'shop': customer, order, profile, tag" in done.stderr
        assert "EXPAND']['shop.order'] names 'custmer': 'custmer' is no relation of shop.order" in done.stderr
        assert "did you mean 'customer'? relations of shop.order: customer, tags" in done.stderr


def test_secret_names_are_recognised_and_ordinary_ones_are_not() -> None:
    from action_triggers_client.django.serialize import is_secret_field

    secret = ["password", "Password", "passwd", "passphrase", "client_secret", "access_token", "refresh_tokens", "api_key",
              "apikey", "key", "access_key", "private_key", "encryption_key", "session_key", "session_data", "signing_key",
              "otp_seed", "credentials"]
    ordinary = ["name", "email", "total", "monkey", "keyboard", "customer", "status", "primary_colour", "keys_count"]
    assert [n for n in secret if not is_secret_field(n)] == []
    assert [n for n in ordinary if is_secret_field(n)] == []
