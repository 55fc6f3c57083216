"""The sender after commit: a committed transaction's outbox rows, sent at once by a thread of the
process (what it has not sent when the process ends, the relay sends)."""
from __future__ import annotations

import atexit
import logging
import queue
import threading

from django.db import close_old_connections
from django.db.models import Q

from .models import OutboxSignal
from .sender import Sender
from .unavailable import ServiceUnavailable

log = logging.getLogger("action_triggers_client.relay")

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
        sender = Sender(using)
        rows = sender.load(OutboxSignal.objects.using(using).filter(id__in=ids, state=OutboxSignal.State.PENDING).order_by("id"), len(ids))
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
            sender.send(rows)
    except ServiceUnavailable as e:
        log.warning("outbox rows left to the relay: %s", e)
    except Exception:
        log.exception("could not send outbox rows after commit; the relay will")
