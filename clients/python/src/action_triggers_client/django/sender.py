"""Sending outbox rows to the service: what the sender after commit (``after_commit.py``) and the
relay (``relay.py``, ``manage.py action_triggers_relay``) both do.

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

import datetime
import json
import logging
import re
from collections import deque
from typing import Any, Callable, Iterable

from django.db import connections, models
from django.db.models import F, Q
from django.utils import timezone

from ..client import RETRYABLE_STATUSES, ActionTriggersClient, ProblemError, RetryPolicy, TransportError
from . import conf
from .claims import ClaimingDrain
from .models import Emitter, OutboxSignal, signal_id
from .unavailable import Outcome, ServiceUnavailable

log = logging.getLogger("action_triggers_client.relay")

CONFIG_STATUSES = frozenset({401, 403, 404, 405})
_ITEM = re.compile(r"^\[(\d+)\]")
MAX_ERROR_CHARS = 2000


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


class Sender(ClaimingDrain):
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
