"""Saves and deletes of listed models reach a real receiver through the real service."""
from __future__ import annotations

import datetime
import re
import uuid
from decimal import Decimal

import pytest
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.test import override_settings
from django.utils import timezone

from action_triggers_client.django.models import Emitter, OutboxSignal
from action_triggers_client.django.serialize import serialize
from conftest import envelope_for
from shop.models import Customer, Order, Profile, Tag


def _name() -> str:
    return f"cust-{uuid.uuid4().hex[:10]}"


def _customer(**kw) -> Customer:
    name = _name()
    return Customer.objects.create(name=name, email=f"{name}@example.org", **kw)


def test_save_update_delete_reach_the_receiver_rendered_with_the_expanded_customer(triggers, receiver) -> None:
    with transaction.atomic():
        customer = _customer()
        tag = Tag.objects.create(name="gift")
        order = Order.objects.create(customer=customer, total=Decimal("12.50"), placed_at=timezone.now())
        order.tags.add(tag)
    [templated] = receiver.wait_for(lambda r: r["path"] == "/templated" and r["body"].get("order") == order.id)
    assert templated["body"] == {"order": order.id, "customer": customer.name,
                                 "text": f"Order {order.id} for {customer.name}, total 12.50"}
    assert templated["headers"]["webhook-id"].endswith(f".{triggers['templated']['id']}.w0")

    for signal in ("pre_save", "post_save"):
        [env] = receiver.wait_for(envelope_for(receiver, "order", signal, "ref", str(order.ref)))
        assert env["body"]["instance"]["customer"]["name"] == customer.name
    assert not OutboxSignal.objects.exists()  # sent after commit, then deleted

    with transaction.atomic():
        order.total = Decimal("20.00")
        order.save()
    updated = receiver.wait_for(lambda r: r["path"] == "/templated" and r["body"].get("order") == order.id, count=2)
    assert sorted(r["body"]["text"][-5:] for r in updated) == ["12.50", "20.00"]
    # The tags added after the first save show in the update's expansion.
    [after] = receiver.wait_for(lambda r: envelope_for(receiver, "order", "post_save", "id", order.id)(r)
                                and r["body"]["instance"]["total"] == "20.00")
    assert [t["name"] for t in after["body"]["instance"]["tags"]] == ["gift"]

    order_id = order.id
    with transaction.atomic():
        order.delete()
    for signal in ("pre_delete", "post_delete"):
        [env] = receiver.wait_for(envelope_for(receiver, "order", signal, "id", order_id))
        assert env["body"]["instance"]["customer"]["name"] == customer.name
        assert env["body"]["instance"]["pk"] == order_id


def test_autocommit_save_and_cascade_delete(triggers, receiver) -> None:
    customer = _customer()  # no transaction: Django's autocommit
    profile = Profile.objects.create(customer=customer, bio="hello")
    for signal in ("pre_save", "post_save"):
        assert receiver.wait_for(envelope_for(receiver, "customer", signal, "name", customer.name))
    [p] = receiver.wait_for(envelope_for(receiver, "profile", "post_save", "id", profile.id))
    assert p["body"]["instance"]["customer"] == {"id": customer.id, "pk": customer.id, "name": customer.name,
                                                 "email": customer.email, "joined": None}
    customer.delete()  # cascades to the profile; pre_delete captured both before they were gone
    [gone] = receiver.wait_for(envelope_for(receiver, "profile", "post_delete", "id", profile.id))
    assert gone["body"]["instance"]["customer"]["name"] == customer.name
    assert receiver.wait_for(envelope_for(receiver, "customer", "post_delete", "name", customer.name))


def test_a_failed_autocommit_save_emits_nothing() -> None:
    existing = _customer()
    OutboxSignal.objects.all().delete()
    with override_settings(ACTION_TRIGGERS_CLIENT={**_settings(), "SEND_ON_COMMIT": False}):
        with pytest.raises(IntegrityError):
            Customer.objects.create(name="dup", email=existing.email)
        assert not OutboxSignal.objects.exists()


def _settings() -> dict:
    from django.conf import settings

    return dict(settings.ACTION_TRIGGERS_CLIENT)


def test_rolled_back_transactions_emit_nothing(triggers, receiver) -> None:
    rolled, kept = _name(), _name()
    with pytest.raises(RuntimeError):
        with transaction.atomic():
            Customer.objects.create(name=rolled, email=f"{rolled}@example.org")
            assert OutboxSignal.objects.count() == 2  # written in the transaction...
            raise RuntimeError("roll back")
    assert not OutboxSignal.objects.exists()  # ...and gone with it
    with transaction.atomic():
        try:
            with transaction.atomic():  # a savepoint rolled back inside a committed transaction
                Customer.objects.create(name=rolled, email=f"{rolled}@example.org")
                raise RuntimeError("roll back the savepoint")
        except RuntimeError:
            pass
        Customer.objects.create(name=kept, email=f"{kept}@example.org")
    assert receiver.wait_for(envelope_for(receiver, "customer", "post_save", "name", kept))
    assert receiver.wait_for(envelope_for(receiver, "customer", "post_save", "name", rolled), timeout=2) == []
    assert receiver.matching(lambda r: rolled in str(r["body"])) == []


def test_an_unlisted_model_emits_nothing(triggers, receiver) -> None:
    name = f"tag-{uuid.uuid4().hex[:8]}"
    tag = Tag.objects.create(name=name)  # the envelope trigger watches shop.tag: only the client's list keeps it out
    tag.name = name + "-2"
    tag.save()
    tag.delete()
    assert not OutboxSignal.objects.exists()
    marker = _customer()
    assert receiver.wait_for(envelope_for(receiver, "customer", "post_save", "name", marker.name))
    assert receiver.matching(lambda r: name in str(r["body"])) == []


def test_the_instance_is_serialised_like_djangos_serializer() -> None:
    with override_settings(ACTION_TRIGGERS_CLIENT={**_settings(), "SEND_ON_COMMIT": False}):
        customer = _customer(joined=datetime.date(2024, 2, 29))
        with transaction.atomic():
            order = Order(customer=customer, total=Decimal("0.10"), note="n",
                          placed_at=datetime.datetime(2025, 1, 2, 3, 4, 5, 678901, tzinfo=datetime.timezone.utc))
            order.attachment.save("receipt.txt", ContentFile(b"x"), save=False)
            order.save()
        row = OutboxSignal.objects.filter(model_name="order", signal="post_save").get()
    assert row.instance == {
        "id": order.id, "pk": order.id, "ref": str(order.ref), "total": "0.10", "note": "n",
        "placed_at": "2025-01-02T03:04:05.678901+00:00", "attachment": order.attachment.name, "status": "pending",
        "customer": {"id": customer.id, "pk": customer.id, "name": customer.name, "email": customer.email, "joined": "2024-02-29"},
        "tags": [],
    }
    assert row.instance_pk == str(order.id)
    pre = OutboxSignal.objects.filter(model_name="order", signal="pre_save").get()
    assert pre.instance["pk"] is None and pre.instance_pk == "" and pre.id < row.id
    # Without EXPAND the foreign key is the related id, as serializers.serialize writes it.
    assert serialize(order, "default")["customer"] == customer.id


def test_a_database_names_itself_once_the_first_part_of_every_signal_id() -> None:
    name = Emitter.name_for("default")
    assert re.fullmatch(r"[0-9a-f]{12}", name)
    assert Emitter.name_for("default") == name
    assert list(Emitter.objects.values_list("name", flat=True)) == [name]


def test_the_sender_after_commit_leaves_an_instance_with_older_rows_to_the_relay(triggers, receiver) -> None:
    with override_settings(ACTION_TRIGGERS_CLIENT={**_settings(), "SEND_ON_COMMIT": False}):
        customer = _customer()
    older = list(OutboxSignal.objects.order_by("id").values_list("id", flat=True))
    customer.name = customer.name + "-renamed"
    customer.save()  # committed and sent after commit: but this instance has older rows pending
    states = dict(OutboxSignal.objects.values_list("id", "state"))
    assert len(states) == 4 and all(s == "pending" for s in states.values()) and set(older) < set(states)
    from django.core.management import call_command

    call_command("action_triggers_relay", "--once")
    assert not OutboxSignal.objects.exists()
    assert receiver.wait_for(envelope_for(receiver, "customer", "post_save", "name", customer.name))
