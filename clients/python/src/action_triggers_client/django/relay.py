"""The relay behind ``manage.py action_triggers_relay``: sends what the sender after commit did not
(a process that died, the service away), oldest first, backing off while the service is away."""
from __future__ import annotations

import logging
import random
import threading
from typing import Callable

from django.db import close_old_connections

from . import conf
from .sender import Sender
from .unavailable import Outcome, ServiceUnavailable

log = logging.getLogger("action_triggers_client.relay")


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
