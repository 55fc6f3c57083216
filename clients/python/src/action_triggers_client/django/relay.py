"""Sending outbox rows: right after commit, and by the relay (``manage.py action_triggers_relay``).

Rows go in id order, in batches (the batch form of ``POST /api/signals``: at most
``BATCH_SIZE`` signals and ``MAX_BATCH_BYTES`` of JSON per request). A row's signal id is
``dj-<emitter>-<row id>``, so a row sent twice (a crash after the request, the sender after
commit and the relay at once) is one dispatch: the service answers the second with
``"duplicate": true``.

- 202: the rows are sent: deleted, or kept as ``sent`` for ``KEEP_SENT``.
- A refusal naming items (``errors[].path`` ``[i]…``): those rows are kept as ``failed`` with the
  reason; the others are sent again at once. A refusal naming none: the batch's rows are sent
  one by one, and a lone row refused is ``failed``. Failed rows never block the rest.
- Connection errors, time-outs, 408, 425, 429, 5xx, and 401/403/404/405 (a wrong key or URL:
  not the row's fault): nothing is settled, the rows stay ``pending`` (``attempts`` and
  ``last_error`` say why) and :class:`ServiceUnavailable` is raised; the relay backs off.
"""
from __future__ import annotations

import atexit
import datetime
import json
import logging
import queue
import random
import re
import threading
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from django.db import close_old_connections, connections, models, transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from ..client import RETRYABLE_STATUSES, ActionTriggersClient, ProblemError, RetryPolicy, TransportError
from . import conf
from .models import Emitter, OutboxSignal, signal_id

log = logging.getLogger("action_triggers_client.relay")

CONFIG_STATUSES = frozenset({401, 403, 404, 405})
_ITEM = re.compile(r"^\[(\d+)\]")
MAX_ERROR_CHARS = 2000


class ServiceUnavailable(Exception):
    """The service could not take the rows now; they stay pending."""


@dataclass
class Outcome:
    sent: int = 0
    failed: int = 0

    def __iadd__(self, other: "Outcome") -> "Outcome":
        self.sent += other.sent
        self.failed += other.failed
        return self


def client_for(settings: conf.Settings) -> ActionTriggersClient:
    # One attempt per request: the relay's loop does the backing off, and the sender after
    # commit must not keep a web request waiting.
    return ActionTriggersClient(settings.base_url, settings.api_key, timeout=settings.timeout, retry=RetryPolicy(attempts=1))


def _iso(value: datetime.datetime) -> str:
    if timezone.is_naive(value):
        value = timezone.make_aware(value, timezone.get_default_timezone())
    return value.astimezone(datetime.timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def signal_of(row: OutboxSignal, emitter: str) -> dict[str, Any]:
    return {"id": signal_id(emitter, row.id), "signal": row.signal, "app_label": row.app_label,
            "model_name": row.model_name, "instance": row.instance, "occurred_at": _iso(row.occurred_at)}


class Sender:
    def __init__(self, using: str = "default", client: ActionTriggersClient | None = None) -> None:
        self.using = using
        self.settings = conf.settings()
        self.client = client or client_for(self.settings)

    def _rows(self) -> models.QuerySet[OutboxSignal]:
        return OutboxSignal.objects.using(self.using)

    def send(self, rows: Iterable[OutboxSignal]) -> Outcome:
        """Sends the rows (in the order given: id order). Raises ServiceUnavailable, leaving the
        rows not settled yet pending."""
        emitter = Emitter.name_for(self.using)
        queue: deque[tuple[OutboxSignal, dict[str, Any], int]] = deque()
        for row in rows:
            sig = signal_of(row, emitter)
            queue.append((row, sig, len(json.dumps(sig, separators=(",", ":"), ensure_ascii=False).encode()) + 1))
        alone: set[int] = set()
        outcome = Outcome()
        while queue:
            batch = [queue.popleft()]
            size = batch[0][2] + 2
            if batch[0][0].id not in alone:
                while (queue and len(batch) < self.settings.batch_size and queue[0][0].id not in alone
                       and size + queue[0][2] <= self.settings.max_batch_bytes):
                    size += queue[0][2]
                    batch.append(queue.popleft())
            try:
                self.client.emit_many([sig for _, sig, _ in batch])
            except ProblemError as e:
                if e.status in RETRYABLE_STATUSES or e.status in CONFIG_STATUSES:
                    self._unsettled([r for r, _, _ in batch] + [r for r, _, _ in queue], str(e))
                    raise ServiceUnavailable(str(e)) from e
                by_item = _item_errors(e, len(batch))
                if by_item:
                    for i, reason in sorted(by_item.items()):
                        self._failed(batch[i][0], reason)
                        outcome.failed += 1
                    queue.extendleft(reversed([b for i, b in enumerate(batch) if i not in by_item]))
                elif len(batch) > 1:
                    alone.update(r.id for r, _, _ in batch)
                    queue.extendleft(reversed(batch))
                else:
                    self._failed(batch[0][0], str(e))
                    outcome.failed += 1
                continue
            except TransportError as e:
                self._unsettled([r for r, _, _ in batch] + [r for r, _, _ in queue], str(e))
                raise ServiceUnavailable(str(e)) from e
            self._sent([r.id for r, _, _ in batch])
            outcome.sent += len(batch)
        return outcome

    def _sent(self, ids: list[int]) -> None:
        if self.settings.keep_sent.total_seconds() > 0:
            self._rows().filter(id__in=ids).update(state=OutboxSignal.State.SENT, sent_at=timezone.now(), last_error="")
        else:
            self._rows().filter(id__in=ids).delete()

    def _failed(self, row: OutboxSignal, reason: str) -> None:
        log.warning("the service refused outbox row %s (%s.%s %s): %s", row.id, row.app_label, row.model_name, row.signal, reason)
        self._rows().filter(id=row.id, state=OutboxSignal.State.PENDING).update(
            state=OutboxSignal.State.FAILED, last_error=reason[:MAX_ERROR_CHARS], attempts=F("attempts") + 1)

    def _unsettled(self, rows: list[OutboxSignal], reason: str) -> None:
        ids = [r.id for r in rows]
        for i in range(0, len(ids), 500):
            self._rows().filter(id__in=ids[i:i + 500], state=OutboxSignal.State.PENDING).update(
                attempts=F("attempts") + 1, last_error=reason[:MAX_ERROR_CHARS])

    def drain(self, min_age: float | None = None, should_stop: Callable[[], bool] = lambda: False) -> Outcome:
        """Sends every pending row the sender after commit is not about to send (it has had
        ``min_age`` seconds, or tried already), oldest first, until none is left.

        On PostgreSQL several relays may drain at once (rows are claimed, see
        :meth:`_drain_claiming`); elsewhere (SQLite) one relay at a time."""
        min_age = self.settings.relay_min_age if min_age is None else min_age
        if connections[self.using].vendor == "postgresql":
            return self._drain_claiming(min_age, should_stop)
        outcome = Outcome()
        last_id = 0
        while not should_stop():
            cutoff = timezone.now() - datetime.timedelta(seconds=min_age)
            rows = list(self._rows().filter(state=OutboxSignal.State.PENDING, id__gt=last_id)
                        .filter(Q(attempts__gt=0) | Q(occurred_at__lte=cutoff)).order_by("id")[:self.settings.batch_size * 4])
            if not rows:
                break
            outcome += self.send(rows)
            last_id = rows[-1].id
        return outcome

    # ---- PostgreSQL: several relays at once ------------------------------------------------

    def _drain_claiming(self, min_age: float, should_stop: Callable[[], bool]) -> Outcome:
        """Pass after pass, until nothing is left to claim: in one transaction, claim rows
        (locked, so no other relay takes them), send them holding the locks, settle them, commit.
        Rows other relays hold are skipped, not waited for: those relays send them."""
        # The emitter's name is committed first: created inside a pass, a rolled-back pass would
        # drop it, and the rows it sent would be sent again under another name (not deduplicated).
        Emitter.name_for(self.using)
        outcome = Outcome()
        while not should_stop():
            with transaction.atomic(using=self.using):
                rows = self._claim(min_age)
                if not rows:
                    break
                passed, unavailable = self._send_keeping_settled(rows)
            outcome += passed
            if unavailable is not None:
                raise unavailable
        return outcome

    def _send_keeping_settled(self, rows: list[OutboxSignal]) -> tuple[Outcome, ServiceUnavailable | None]:
        """ServiceUnavailable is returned, not raised, so the pass's transaction commits: the rows
        settled before the service went away stay settled, and the others' attempts are counted."""
        try:
            return self.send(rows), None
        except ServiceUnavailable as e:
            return Outcome(), e

    def _claim(self, min_age: float) -> list[OutboxSignal]:
        """Locks and returns the rows of this pass, in id order.

        First the heads: rows with no earlier pending row of their instance, locked with SKIP
        LOCKED (heads another relay holds are passed over). Holding an instance's head is owning
        the instance: another relay's NOT EXISTS sees that head pending until this transaction
        commits, so it takes none of the instance's later rows. Then those instances' following
        rows, in id order (a prefix of each instance's rows). Only ``batch_size`` heads per pass:
        the other instances are left to the other relays."""
        eligible = self._eligible(min_age)
        heads = list(eligible.filter(~Exists(self._earlier_pending_of_same_instance())).order_by("id")
                     .select_for_update(skip_locked=True).values_list("id", flat=True)[:self.settings.batch_size])
        if not heads:
            return []
        # No SKIP LOCKED here: no other relay can hold these rows (it would have to own their
        # instance); skipping one would send the next row of its instance before it.
        return list(eligible.filter(Q(id__in=heads) | Q(Exists(self._same_instance_as(heads)))).order_by("id")
                    .select_for_update()[:self.settings.batch_size * 4])

    def _eligible(self, min_age: float) -> models.QuerySet[OutboxSignal]:
        cutoff = timezone.now() - datetime.timedelta(seconds=min_age)
        return self._rows().filter(state=OutboxSignal.State.PENDING).filter(Q(attempts__gt=0) | Q(occurred_at__lte=cutoff))

    def _earlier_pending_of_same_instance(self) -> models.QuerySet[OutboxSignal]:
        # Rows without a primary key (instance_pk "") belong to no instance: nothing goes before them.
        # Failed rows never block the rest, so only pending ones count.
        return self._rows().filter(state=OutboxSignal.State.PENDING, app_label=OuterRef("app_label"), model_name=OuterRef("model_name"),
                                   instance_pk=OuterRef("instance_pk"), id__lt=OuterRef("id")).exclude(instance_pk="")

    def _same_instance_as(self, heads: list[int]) -> models.QuerySet[OutboxSignal]:
        return self._rows().filter(id__in=heads, app_label=OuterRef("app_label"), model_name=OuterRef("model_name"),
                                   instance_pk=OuterRef("instance_pk")).exclude(instance_pk="")

    def purge_sent(self) -> int:
        keep = self.settings.keep_sent
        if keep.total_seconds() <= 0:
            return 0
        deleted, _ = self._rows().filter(state=OutboxSignal.State.SENT, sent_at__lt=timezone.now() - keep).delete()
        return deleted


def _item_errors(e: ProblemError, count: int) -> dict[int, str]:
    found: dict[int, list[str]] = {}
    for err in e.errors:
        m = _ITEM.match(err.path)
        if m and int(m.group(1)) < count:
            found.setdefault(int(m.group(1)), []).append(f"{err.path[m.end():].lstrip('.') or '(signal)'}: {err.message}")
    head = f"{e.status} {e.title or ''}".strip()
    return {i: f"{head}: " + "; ".join(msgs) for i, msgs in found.items()}


# The sender after commit: one thread per process, so the request that committed the rows never
# waits for the service (a round trip and the service's durable append: ~15 ms here, more than
# the save itself). One thread keeps the transactions' order; what it has not sent when the
# process ends, the relay sends.
_to_send: "queue.SimpleQueue[tuple[str, list[int]] | None]" = queue.SimpleQueue()
_sender: threading.Thread | None = None
_sender_lock = threading.Condition()
_unsent = 0  # transactions handed over and not yet through send_after_commit
AT_EXIT_WAIT_S = 5.0


def _send_loop() -> None:
    global _unsent
    while (item := _to_send.get()) is not None:
        try:
            send_after_commit(*item)
        finally:
            close_old_connections()
            with _sender_lock:
                _unsent -= 1
                _sender_lock.notify_all()


def flush_sender(timeout: float = AT_EXIT_WAIT_S) -> bool:
    """Waits until the sender after commit has tried every transaction handed to it so far
    (a script about to exit, a test); False if it had not within ``timeout`` seconds."""
    with _sender_lock:
        return _sender_lock.wait_for(lambda: _unsent == 0, timeout)


def send_soon(using: str, ids: list[int]) -> None:
    """Hands a committed transaction's rows to the sender thread (started on first use)."""
    global _sender, _unsent
    with _sender_lock:
        if _sender is None or not _sender.is_alive():
            if _sender is None:
                atexit.register(flush_sender)  # a short script saves and exits: a moment to send
            _sender = threading.Thread(target=_send_loop, name="action-triggers-client-sender", daemon=True)
            _sender.start()
        _unsent += 1
    _to_send.put((using, ids))


def send_after_commit(using: str, ids: list[int]) -> None:
    """The transaction's rows, sent once it committed. Never raises: what is not sent here, the
    relay sends. A row of an instance that still has an older row pending waits for the relay,
    so rows of one instance go in the order written."""
    try:
        rows = list(OutboxSignal.objects.using(using).filter(id__in=ids, state=OutboxSignal.State.PENDING).order_by("id"))
        if not rows:
            return
        keys = {(r.app_label, r.model_name, r.instance_pk) for r in rows if r.instance_pk}
        if keys:
            older = OutboxSignal.objects.using(using).filter(state=OutboxSignal.State.PENDING, id__lt=rows[-1].id).exclude(id__in=ids)
            if len(keys) <= 100:
                q = Q()
                for app_label, model_name, pk in keys:
                    q |= Q(app_label=app_label, model_name=model_name, instance_pk=pk)
                blocked = set(older.filter(q).values_list("app_label", "model_name", "instance_pk"))
            else:
                blocked = keys if older.exists() else set()
            rows = [r for r in rows if (r.app_label, r.model_name, r.instance_pk) not in blocked]
        if rows:
            Sender(using).send(rows)
    except ServiceUnavailable as e:
        log.warning("outbox rows left to the relay: %s", e)
    except Exception:
        log.exception("could not send outbox rows after commit; the relay will")


class Relay:
    """The loop behind ``manage.py action_triggers_relay``: drain, then wait for more; while the
    service is away, wait ``initial`` seconds doubling to ``RELAY_MAX_BACKOFF`` (with jitter)."""

    def __init__(self, using: str = "default", stop: threading.Event | None = None, initial_backoff: float = 0.5,
                 min_age: float | None = None) -> None:
        self.using = using
        self.stop = stop or threading.Event()
        self.initial_backoff = initial_backoff
        self.min_age = min_age

    def run(self, report: Callable[[str], None] = log.info) -> Outcome:
        total = Outcome()
        backoff = self.initial_backoff
        while not self.stop.is_set():
            settings = conf.settings()
            try:
                close_old_connections()
                sender = Sender(self.using)
                outcome = sender.drain(self.min_age, self.stop.is_set)
                sender.purge_sent()
            except ServiceUnavailable as e:
                wait = random.uniform(backoff / 2, backoff)
                report(f"service unavailable ({e}); next try in {wait:.1f}s")
                self.stop.wait(wait)
                backoff = min(backoff * 2, settings.relay_max_backoff)
                continue
            except Exception as e:  # the database away, a lock held too long: back off as well
                log.exception("relay pass failed")
                wait = random.uniform(backoff / 2, backoff)
                report(f"relay pass failed ({type(e).__name__}: {e}); next try in {wait:.1f}s")
                self.stop.wait(wait)
                backoff = min(backoff * 2, settings.relay_max_backoff)
                continue
            backoff = self.initial_backoff
            total += outcome
            if outcome.sent or outcome.failed:
                report(f"sent {outcome.sent}, failed {outcome.failed}")
            else:
                self.stop.wait(settings.relay_poll_interval)
        return total
