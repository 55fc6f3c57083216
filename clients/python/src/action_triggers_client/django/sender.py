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
- A row that cannot be read back or sent as JSON (``poison.py``) is kept as ``failed`` with the
  reason before anything is sent; the others go on.
- Connection errors, time-outs, 408, 425, 429, 5xx, 401/403/404/405 (a wrong key or URL: not the
  row's fault), any redirect (never followed: the key would go along) and a 2xx that is not the
  service's answer: nothing is settled, the rows stay ``pending`` (``attempts`` and
  ``last_error`` say why) and :class:`ServiceUnavailable` is raised; the relay backs off.
"""
from __future__ import annotations

import datetime
import logging
import re
from collections import deque
from typing import Any, Callable, Iterable

from django.db import connections, models
from django.db.models import F, Q
from django.utils import timezone

from ..client import RETRYABLE_STATUSES, ActionTriggersClient, ActionTriggersError, ProblemError, RetryPolicy
from . import conf
from .claims import ClaimingDrain
from .models import Emitter, OutboxSignal, signal_id
from .poison import encoded_size, load_rows, unsendable_reason
from .unavailable import Outcome, ServiceUnavailable, unavailable_reason

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
    sig = {"id": signal_id(emitter, row.id, row.token), "signal": row.signal, "app_label": row.app_label,
           "model_name": row.model_name, "instance": row.instance, "occurred_at": _iso(row.occurred_at)}
    if row.previous is not None:  # SEND_PREVIOUS: the stored row before the change
        sig["previous"] = row.previous
    return sig


class Sender(ClaimingDrain):
    def __init__(self, using: str = "default", client: ActionTriggersClient | None = None) -> None:
        self.using = using
        self.settings = conf.settings()
        self.client = client or client_for(self.settings)
        self.unreadable = 0  # rows set aside because they could not be read

    def _rows(self) -> models.QuerySet[OutboxSignal]:
        return OutboxSignal.objects.using(self.using)

    def send(self, rows: Iterable[OutboxSignal]) -> Outcome:
        """Sends the rows (in the order given: id order). Raises ServiceUnavailable, leaving the
        rows not settled yet pending."""
        emitter = Emitter.name_for(self.using)
        queue: deque[tuple[OutboxSignal, dict[str, Any], int]] = deque()
        outcome = Outcome()
        for row in rows:
            sig = None
            try:
                sig = signal_of(row, emitter)
                queue.append((row, sig, encoded_size(sig)))
            except Exception as e:  # noqa: BLE001 - whatever this row holds, it must not stop the others
                self._failed(row, unsendable_reason(sig, e))
                outcome.failed += 1
        alone: set[int] = set()
        while queue:
            batch = [queue.popleft()]
            size = batch[0][2] + 2
            if batch[0][0].id not in alone:
                while (queue and len(batch) < self.settings.batch_size and queue[0][0].id not in alone
                       and size + queue[0][2] <= self.settings.max_batch_bytes):
                    size += queue[0][2]
                    batch.append(queue.popleft())
            try:
                accepted = self.client.emit_many([sig for _, sig, _ in batch])
            except ProblemError as e:
                # The service refuses with problem+json; another refusal (a proxy's HTML page) is
                # not the rows' fault and must not fail them.
                if e.status in RETRYABLE_STATUSES or e.status in CONFIG_STATUSES or not _from_the_service(e):
                    self._unsettled([r for r, _, _ in batch] + [r for r, _, _ in queue], str(e))
                    raise ServiceUnavailable(unavailable_reason(e)) from e
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
            except ActionTriggersError as e:  # unreachable, a redirect, an answer that is not JSON
                self._unsettled([r for r, _, _ in batch] + [r for r, _, _ in queue], str(e))
                raise ServiceUnavailable(str(e)) from e
            if not _answers_each(accepted, batch):
                reason = (f"{self.settings.base_url}/api/signals answered 2xx with something other than the service's "
                          "answer (one entry per signal, by id): a proxy or another server? Rows left pending")
                self._unsettled([r for r, _, _ in batch] + [r for r, _, _ in queue], reason)
                raise ServiceUnavailable(reason)
            self._sent([r.id for r, _, _ in batch])
            outcome.sent += len(batch)
        return outcome

    def _sent(self, ids: list[int]) -> None:
        if self.settings.keep_sent.total_seconds() > 0:
            self._rows().filter(id__in=ids).update(state=OutboxSignal.State.SENT, sent_at=timezone.now(), last_error="")
        else:
            _delete(self._rows().filter(id__in=ids), self.using)

    def _failed(self, row: OutboxSignal, reason: str) -> None:
        self._set_aside(row.id, reason, f"({row.app_label}.{row.model_name} {row.signal})")

    def _set_aside(self, row_id: int, reason: str, what: str = "") -> None:
        # A reason may quote the bad value itself: lone surrogates are escaped, so any database takes it.
        reason = reason.encode("utf-8", "backslashreplace").decode("utf-8")[:MAX_ERROR_CHARS]
        log.warning("outbox row %s %s set aside as failed: %s", row_id, what, reason)
        self._rows().filter(id=row_id, state=OutboxSignal.State.PENDING).update(
            state=OutboxSignal.State.FAILED, last_error=reason, attempts=F("attempts") + 1)

    def load(self, query: models.QuerySet[OutboxSignal], limit: int) -> list[OutboxSignal]:
        """The first ``limit`` rows of ``query``; rows that cannot be read are set aside (and
        counted in :attr:`unreadable`)."""
        return load_rows(query, limit, self._set_aside_unreadable)

    def _set_aside_unreadable(self, row_id: int, reason: str) -> None:
        self._set_aside(row_id, reason)
        self.unreadable += 1

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
            outcome = self._drain_claiming(min_age, should_stop)
        else:
            outcome = self._drain_in_order(min_age, should_stop)
        outcome.failed += self.unreadable
        self.unreadable = 0
        return outcome

    def _drain_in_order(self, min_age: float, should_stop: Callable[[], bool]) -> Outcome:
        outcome = Outcome()
        last_id = 0
        while not should_stop():
            query = self._eligible(min_age).filter(id__gt=last_id).order_by("id")
            rows = self.load(query, self.settings.batch_size * 4)
            if not rows:
                if query.exists():
                    continue  # all of them were set aside
                break
            outcome += self.send(rows)
            last_id = rows[-1].id
        return outcome

    def purge_sent(self) -> int:
        keep = self.settings.keep_sent
        if keep.total_seconds() <= 0:
            return 0
        return _delete(self._rows().filter(state=OutboxSignal.State.SENT, sent_at__lt=timezone.now() - keep), self.using)


def _delete(rows: models.QuerySet[OutboxSignal], using: str) -> int:
    # One DELETE. QuerySet.delete() would first read every row back (this app's delete receivers
    # make Django collect them): a wasted query, and one that fails on a row that cannot be read.
    return rows._raw_delete(using)  # type: ignore[attr-defined]


def _answers_each(accepted: Any, batch: list[tuple[OutboxSignal, dict[str, Any], int]]) -> bool:
    """Whether the answer is the service's: one entry per signal sent, in order, by id, each
    saying whether it was a duplicate (a server echoing the request back would not)."""
    return (isinstance(accepted, list) and len(accepted) == len(batch)
            and all(isinstance(a, dict) and a.get("id") == sig["id"] and isinstance(a.get("duplicate"), bool)
                    for a, (_, sig, _) in zip(accepted, batch)))


def _from_the_service(e: ProblemError) -> bool:
    return e.headers.get("content-type", "").split(";")[0].strip() == "application/problem+json"


def _item_errors(e: ProblemError, count: int) -> dict[int, str]:
    found: dict[int, list[str]] = {}
    for err in e.errors:
        m = _ITEM.match(err.path)
        if m and int(m.group(1)) < count:
            found.setdefault(int(m.group(1)), []).append(f"{err.path[m.end():].lstrip('.') or '(signal)'}: {err.message}")
    head = f"{e.status} {e.title or ''}".strip()
    return {i: f"{head}: " + "; ".join(msgs) for i, msgs in found.items()}
