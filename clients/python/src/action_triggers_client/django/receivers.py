"""pre_save, post_save, pre_delete and post_delete of the listed models write outbox rows.

Each row is written in the database transaction of the change (the signal's ``using``), so a
rolled-back change leaves no row, and a committed one always has its row. A failure to write
the row fails the change: the signal is not optional. After commit the transaction's rows are
sent at once (``SEND_ON_COMMIT``); whatever is left, the relay sends. For the models in
``SEND_PREVIOUS``, pre_save reads the stored row once and post_save's row carries it as
``previous``, serialised like the instance. Where django-action-triggers
is installed too, these receivers also run its delivery, for what the cut-over leaves to it
(``cutover.py``).
"""
from __future__ import annotations

import datetime
from typing import Any

from django.apps import apps
from django.db import connections, models, transaction
from django.db.models.signals import post_delete, post_save, pre_delete, pre_save

from . import conf, cutover
from .models import OutboxSignal
from .serialize import ORIGIN_FIELDS_KEY, origin_fields, serialize

APP_LABEL = "action_triggers_client"
# Attributes kept on an instance between two signals of one change.
PRE_SAVE_STASH = "_action_triggers_client_pre_save"
PRE_DELETE_STASH = "_action_triggers_client_pre_delete"
PREVIOUS_STASH = "_action_triggers_client_previous"  # the stored row before the save, serialised (SEND_PREVIOUS)
ROUTE_STASH = "_action_triggers_client_route"  # the cut-over route, decided once per change
PENDING_ATTR = "action_triggers_client_pending"  # on a connection: row ids written in its transaction


def connect() -> None:
    pre_save.connect(_on_pre_save, dispatch_uid="action_triggers_client.pre_save")
    post_save.connect(_on_post_save, dispatch_uid="action_triggers_client.post_save")
    pre_delete.connect(_on_pre_delete, dispatch_uid="action_triggers_client.pre_delete")
    post_delete.connect(_on_post_delete, dispatch_uid="action_triggers_client.post_delete")


def disconnect() -> None:
    for sig, uid in ((pre_save, "pre_save"), (post_save, "post_save"), (pre_delete, "pre_delete"), (post_delete, "post_delete")):
        sig.disconnect(dispatch_uid=f"action_triggers_client.{uid}")


def listed(model: type[models.Model]) -> bool:
    opts = model._meta
    if opts.app_label == APP_LABEL:
        return False
    try:
        if apps.get_registered_model(opts.app_label, opts.model_name) is not model:
            return False  # e.g. historical models in migrations
    except LookupError:
        return False
    cts = conf.settings().content_types
    return cts is None or opts.label_lower in cts


def emits(model: type[models.Model], signal: str) -> bool:
    """Whether the model is listed for this signal."""
    if not listed(model):
        return False
    cts = conf.settings().content_types
    return cts is None or signal in cts[model._meta.label_lower]


def _decide_route(sender: type[models.Model], instance: models.Model, using: str) -> cutover.Route | None:
    """The first signal of a change decides its route (pre_save, pre_delete), the second reuses it."""
    relevant = cutover.origin_installed() and (listed(sender) or cutover.origin_watches(sender))
    route = cutover.route_for(using) if relevant else None
    instance.__dict__[ROUTE_STASH] = route
    return route


def _route_of(sender: type[models.Model], instance: models.Model, using: str) -> cutover.Route | None:
    if ROUTE_STASH in instance.__dict__:
        return instance.__dict__.pop(ROUTE_STASH)
    route = _decide_route(sender, instance, using)
    instance.__dict__.pop(ROUTE_STASH, None)
    return route


def _sends(sender: type[models.Model], signal: str, route: cutover.Route | None) -> bool:
    return emits(sender, signal) and (route is None or route.sends(sender._meta.label_lower, signal))


def _sends_previous(sender: type[models.Model], route: cutover.Route | None) -> bool:
    """Whether this change's post_save carries ``previous``: the model is in ``SEND_PREVIOUS`` and its post_save is sent."""
    chosen = conf.settings().send_previous
    return (chosen is None or sender._meta.label_lower in chosen) and _sends(sender, "post_save", route)


def _previous(sender: type[models.Model], instance: models.Model, using: str, raw: bool) -> dict[str, Any] | None:
    """The stored row of the instance, serialised as the instance is (same fields, secrets left
    out, relations expanded), read once, before the save; None when nothing is stored yet."""
    pk_field = sender._meta.pk
    if instance.pk is None:
        return None
    # A new instance whose primary key has a default (a UUID, say): Django inserts without asking.
    if (not raw and instance._state.adding
            and (pk_field.has_default() or getattr(pk_field, "has_db_default", lambda: False)())):
        return None
    stored = sender._base_manager.using(using).filter(pk=instance.pk).first()
    return None if stored is None else _snapshot(sender, stored, using)


def _write_lock_first(using: str) -> None:
    """On SQLite a transaction that reads and then writes fails at once ("database is locked") when
    another connection writes meanwhile (the sender after commit, say): holding a read lock, it
    may not wait for the write lock. So before the receivers of a listed model read in a change's
    transaction there (pre_save, pre_delete: the cut-over route, the stored row, relations), this
    takes the write lock with a write that changes nothing, waiting for it (the connection's
    timeout) as the change's own statement would. A read the caller made earlier in the
    transaction holds its read lock already: that transaction may still fail so."""
    conn = connections[using]
    if conn.vendor == "sqlite" and conn.in_atomic_block:
        with conn.cursor() as cursor:
            cursor.execute(f"UPDATE {conn.ops.quote_name(OutboxSignal._meta.db_table)} SET id = id WHERE 0")


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


def _snapshot(sender: type[models.Model], instance: models.Model, using: str, *, skip_deferred: bool = False) -> dict[str, Any]:
    settings = conf.settings()
    data = serialize(instance, using, settings.expand.get(sender._meta.label_lower, ()), skip_deferred=skip_deferred,
                     send_secret_fields=settings.send_secret_fields)
    # Not for an instance not saved yet (its pre_save): Django's serializer cannot read its many-to-many.
    if (sender._meta.label_lower in settings.origin_fields and instance.pk is not None
            and not (skip_deferred and instance.get_deferred_fields())):
        data[ORIGIN_FIELDS_KEY] = origin_fields(instance, settings.send_secret_fields)
    return data


def _row(sender: type[models.Model], signal: str, instance: models.Model, data: dict[str, Any], at: datetime.datetime,
         previous: dict[str, Any] | None = None) -> OutboxSignal:
    from django.conf import settings as django_settings
    from django.utils import timezone

    occurred = at if django_settings.USE_TZ else timezone.make_naive(at, timezone.get_default_timezone())
    return OutboxSignal(signal=signal, app_label=sender._meta.app_label, model_name=sender._meta.model_name,
                        instance_pk="" if data.get("pk") is None else str(data["pk"])[:255], instance=data, previous=previous,
                        occurred_at=occurred)


def _write(using: str, rows: list[OutboxSignal]) -> None:
    conn = connections[using]
    manual = not conn.in_atomic_block and not conn.get_autocommit()  # set_autocommit(False): no on_commit hooks
    # savepoint=False: inside the caller's transaction this adds no savepoint (a failure here
    # marks that transaction for rollback, so the change is never committed without its row);
    # in autocommit it is the transaction of these rows.
    with transaction.atomic(using=using, savepoint=False):
        if conn.features.can_return_rows_from_bulk_insert:
            OutboxSignal.objects.using(using).bulk_create(rows)  # one INSERT; the ids come back (RETURNING)
        else:  # SQLite before 3.35: one INSERT per row, each giving its id
            for row in rows:
                row.save(using=using, force_insert=True)
        if conf.settings().send_on_commit and not manual:
            pending = getattr(conn, PENDING_ATTR, None)
            if pending is None or not conn.run_on_commit:
                # The first hook of this transaction: ids left from a rolled-back one are dropped.
                pending = []
                setattr(conn, PENDING_ATTR, pending)
            pending.extend(r.id for r in rows)
            transaction.on_commit(lambda: _after_commit(using), using=using)


def _after_commit(using: str) -> None:
    """The transaction's first hook sends all its rows in one batch; the others find none left."""
    conn = connections[using]
    ids = getattr(conn, PENDING_ATTR, None)
    if not ids:
        return
    setattr(conn, PENDING_ATTR, [])
    from .after_commit import send_soon

    send_soon(using, ids)


def _on_pre_save(sender: type[models.Model], instance: models.Model, raw: bool = False, using: str = "default", **_: Any) -> None:
    instance.__dict__.pop(PRE_SAVE_STASH, None)
    instance.__dict__.pop(PREVIOUS_STASH, None)
    if listed(sender):
        _write_lock_first(using)  # what follows may read (the route, the stored row, expanded relations)
    route = _decide_route(sender, instance, using)
    cutover.deliver_by_origin(route, instance, pre_save)
    if _sends_previous(sender, route):
        # Before the save, in its transaction: the row as it is until this save changes it.
        instance.__dict__[PREVIOUS_STASH] = _previous(sender, instance, using, raw)
    if not _sends(sender, "pre_save", route):
        return
    # Snapshot now, written with post_save's row in one INSERT (in the change's transaction, or
    # in autocommit right after the change): a save that fails emits nothing.
    instance.__dict__[PRE_SAVE_STASH] = _row(sender, "pre_save", instance, _snapshot(sender, instance, using), _now())


def _on_post_save(sender: type[models.Model], instance: models.Model, created: bool = False, raw: bool = False,
                  using: str = "default", **_: Any) -> None:
    early = instance.__dict__.pop(PRE_SAVE_STASH, None)
    previous = instance.__dict__.pop(PREVIOUS_STASH, None)
    route = _route_of(sender, instance, using)
    rows = [early] if early is not None else []
    if _sends(sender, "post_save", route):
        # A creation has no previous state (also a row deleted since pre_save read it: inserted again).
        rows.append(_row(sender, "post_save", instance, _snapshot(sender, instance, using), _now(),
                         previous=None if created else previous))
    if rows:
        _write(using, rows)
    # After this app's rows: an origin config that fails (its template, say) must not lose them.
    cutover.deliver_by_origin(route, instance, post_save)


def _on_pre_delete(sender: type[models.Model], instance: models.Model, using: str = "default", **_: Any) -> None:
    if listed(sender):
        _write_lock_first(using)  # what follows reads (the route, the instance's relations)
    route = _decide_route(sender, instance, using)
    cutover.deliver_by_origin(route, instance, pre_delete)
    if not listed(sender):
        return
    # Taken now, while the instance and its relations are still there; post_delete reuses it
    # and writes both rows in one INSERT, in the delete's transaction.
    data = _snapshot(sender, instance, using)
    early = _row(sender, "pre_delete", instance, data, _now()) if _sends(sender, "pre_delete", route) else None
    instance.__dict__[PRE_DELETE_STASH] = (data, early)


def _on_post_delete(sender: type[models.Model], instance: models.Model, using: str = "default", **_: Any) -> None:
    stashed = instance.__dict__.pop(PRE_DELETE_STASH, None)
    route = _route_of(sender, instance, using)
    if listed(sender):
        data, early = stashed if stashed is not None else (_snapshot(sender, instance, using, skip_deferred=True), None)
        rows = [*([early] if early is not None else []),
                *([_row(sender, "post_delete", instance, data, _now())] if _sends(sender, "post_delete", route) else [])]
        if rows:
            _write(using, rows)
    cutover.deliver_by_origin(route, instance, post_delete)
