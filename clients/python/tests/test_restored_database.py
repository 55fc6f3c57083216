"""A database restored from a backup (a file copy, a dump, point-in-time recovery) reissues outbox
row ids the service has already seen: the changes written after the restore are new signals all
the same, dispatched like any other, while a row sent again as it was is still one dispatch."""
from __future__ import annotations

import uuid

from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.test import override_settings

from action_triggers_client.django.models import OutboxSignal
from conftest import envelope_for
from shop.models import Customer

TABLE = OutboxSignal._meta.db_table


def _with(**overrides):
    return override_settings(ACTION_TRIGGERS_CLIENT={**settings.ACTION_TRIGGERS_CLIENT, **overrides})


def _customer(prefix: str) -> Customer:
    name = f"{prefix}-{uuid.uuid4().hex[:10]}"
    return Customer.objects.create(name=name, email=f"{name}@example.org")


def _rewind_row_ids_to(next_id: int) -> None:
    """What a restore does to the outbox's ids: the next row gets ``next_id`` again."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT setval(pg_get_serial_sequence(%s, 'id'), %s, false)", [TABLE, next_id])
        else:
            cursor.execute("UPDATE sqlite_sequence SET seq = %s WHERE name = %s", [next_id - 1, TABLE])


def test_changes_written_after_a_restore_are_dispatched_though_their_row_ids_were_sent_before(triggers, receiver, capsys) -> None:
    with _with(SEND_ON_COMMIT=False):
        sent_before = _customer("before-restore")
        ids_before = list(OutboxSignal.objects.order_by("id").values_list("id", flat=True))
        call_command("action_triggers_relay", "--once")
        assert receiver.wait_for(envelope_for(receiver, "customer", "post_save", "name", sent_before.name))
        assert not OutboxSignal.objects.exists()

        _rewind_row_ids_to(ids_before[0])  # the restore
        after_restore = _customer("after-restore")
        assert list(OutboxSignal.objects.order_by("id").values_list("id", flat=True)) == ids_before
        call_command("action_triggers_relay", "--once")
    assert capsys.readouterr().out.splitlines()[-1] == "sent 2, failed 0"
    assert receiver.wait_for(envelope_for(receiver, "customer", "post_save", "name", after_restore.name))
    assert not OutboxSignal.objects.exists()
