"""Outbox rows that cannot be read back or sent as JSON: each is set aside as ``failed`` with its
reason, and the rows after it are sent, by the relay and by the sender after commit."""
from __future__ import annotations

import uuid

from django.conf import settings
from django.core.management import call_command
from django.db import connection, transaction
from django.test import override_settings

from action_triggers_client.django.after_commit import flush_sender
from action_triggers_client.django.models import OutboxSignal
from conftest import envelope_for
from shop.models import Customer

TABLE = OutboxSignal._meta.db_table
SQLITE = connection.vendor == "sqlite"


def _with(**overrides):
    return override_settings(ACTION_TRIGGERS_CLIENT={**settings.ACTION_TRIGGERS_CLIENT, **overrides})


def _customer() -> Customer:
    name = f"poison-{uuid.uuid4().hex[:10]}"
    return Customer.objects.create(name=name, email=f"{name}@example.org")


def _set_instance_json(row_id: int, text: str) -> None:
    """Writes the row's instance as this JSON text, below the ORM (as another program or an
    old bug would have)."""
    cast = "::jsonb" if connection.vendor == "postgresql" else ""
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {TABLE} SET instance = %s{cast} WHERE id = %s", [text, row_id])


def _poison_rows_of_every_kind() -> dict[str, int]:
    """One row per kind of poison this database can hold, each a customer's post_save row."""
    # A number past a float's range: json.loads makes it inf, which JSON text cannot carry (written
    # out, as PostgreSQL's jsonb would print 1e400 as an integer).
    kinds = {"infinity": '{"id": 1, "total": 1' + "0" * 400 + '.5}'}
    if SQLITE:  # PostgreSQL's jsonb refuses a lone surrogate
        kinds["lone surrogate"] = '{"id": 1, "note": {"k": "\\ud800"}}'
    kinds["date edited by hand"] = '{"id": 1}'
    rows = {}
    for kind, text in kinds.items():
        customer = _customer()
        row = OutboxSignal.objects.get(instance_pk=str(customer.pk), signal="post_save")
        _set_instance_json(row.id, text)
        if kind == "date edited by hand":  # a date Python cannot hold (SQLite keeps any text; PostgreSQL has infinity)
            bad_date = "'2026-13-45 99:00:00'" if SQLITE else "'-infinity'"
            with connection.cursor() as cursor:
                cursor.execute(f"UPDATE {TABLE} SET occurred_at = {bad_date} WHERE id = %s", [row.id])
        rows[kind] = row.id
    return rows


def _assert_set_aside(rows: dict[str, int]) -> None:
    reasons = dict(OutboxSignal.objects.filter(id__in=rows.values(), state="failed").values_list("id", "last_error"))
    assert set(reasons) == set(rows.values()), reasons
    assert "instance.total: inf is not a JSON number" in reasons[rows["infinity"]]
    if SQLITE:
        assert "instance.note.k: surrogates not allowed ('\\ud800' at character 0)" in reasons[rows["lone surrogate"]]
    assert reasons[rows["date edited by hand"]].startswith("the row cannot be read: ")


def test_the_relay_sets_poison_rows_aside_and_sends_the_rows_after_them(triggers, receiver, capsys) -> None:
    with _with(SEND_ON_COMMIT=False):
        before = _customer()
        poison = _poison_rows_of_every_kind()
        after = _customer()
        call_command("action_triggers_relay", "--once")  # raises on a pass that fails
    out = capsys.readouterr().out
    assert f"failed {len(poison)}" in out
    _assert_set_aside(poison)
    for c in (before, after):
        assert receiver.wait_for(envelope_for(receiver, "customer", "post_save", "name", c.name))
    assert OutboxSignal.objects.exclude(state="failed").count() == 0
    call_command("action_triggers_relay", "--once")
    assert "sent 0, failed 0" in capsys.readouterr().out


def test_the_sender_after_commit_sets_a_poison_row_aside_and_sends_its_transaction_s_other_rows(triggers, receiver) -> None:
    with transaction.atomic():
        first = _customer()
        poison = _poison_rows_of_every_kind()
        last = _customer()
    assert flush_sender(30)
    _assert_set_aside(poison)
    for c in (first, last):
        assert receiver.wait_for(envelope_for(receiver, "customer", "post_save", "name", c.name))
    assert OutboxSignal.objects.exclude(state="failed").count() == 0
