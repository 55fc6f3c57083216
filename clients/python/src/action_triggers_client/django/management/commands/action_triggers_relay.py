"""``python manage.py action_triggers_relay``: sends the outbox rows left unsent, until SIGTERM or
SIGINT; ``--once`` drains what is there and exits (status 1 if the service was away)."""
from __future__ import annotations

import signal
import threading
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS

from ... import conf
from ...relay import Relay
from ...sender import Sender
from ...unavailable import ServiceUnavailable


class Command(BaseCommand):
    help = "Sends the action-triggers outbox to the service: runs until SIGTERM/SIGINT, or drains once with --once."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--once", action="store_true", help="send what is pending now, then exit")
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS, help="the database whose outbox to send")
        parser.add_argument("--min-age", type=float, default=None,
                            help="seconds a row not tried yet is left to the sender after commit (default RELAY_MIN_AGE)")

    def handle(self, *args: Any, **options: Any) -> None:
        conf.settings()
        using = options["database"]
        if options["once"]:
            try:
                outcome = Sender(using).drain(0.0 if options["min_age"] is None else options["min_age"])
            except ServiceUnavailable as e:
                raise CommandError(f"the service is unavailable, rows left pending: {e}") from e
            self.stdout.write(f"sent {outcome.sent}, failed {outcome.failed}")
            return
        stop = threading.Event()
        previous = {}
        for sig in (signal.SIGTERM, signal.SIGINT):
            previous[sig] = signal.signal(sig, lambda *_: stop.set())
        try:
            self.stdout.write(f"action_triggers_relay: sending the outbox of database '{using}' to {conf.settings().base_url}")
            self.stdout.flush()
            total = Relay(using, stop, min_age=options["min_age"]).run(lambda line: (self.stdout.write(line), self.stdout.flush()))
            self.stdout.write(f"action_triggers_relay: stopped (sent {total.sent}, failed {total.failed})")
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
