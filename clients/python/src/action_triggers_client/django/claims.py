"""Draining on PostgreSQL, where several relays may run at once: each pass claims rows (locked,
so no other relay takes them), sends them holding the locks, settles them and commits."""
from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Callable, Iterable

from django.db import models, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from .models import Emitter, OutboxSignal
from .unavailable import Outcome, ServiceUnavailable

if TYPE_CHECKING:
    from . import conf


class ClaimingDrain:
    """The claiming passes of :class:`~.sender.Sender` (which provides ``send`` and ``_rows``)."""

    using: str
    settings: conf.Settings

    if TYPE_CHECKING:
        def send(self, rows: Iterable[OutboxSignal]) -> Outcome: ...

        def _rows(self) -> models.QuerySet[OutboxSignal]: ...

        def load(self, query: models.QuerySet[OutboxSignal], limit: int) -> list[OutboxSignal]: ...

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
                if rows is None:
                    break
                if not rows:
                    continue  # every claimed row was set aside (it could not be read): claim again
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

    def _claim(self, min_age: float) -> list[OutboxSignal] | None:
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
            return None
        # No SKIP LOCKED here: no other relay can hold these rows (it would have to own their
        # instance); skipping one would send the next row of its instance before it.
        return self.load(eligible.filter(Q(id__in=heads) | Q(Exists(self._same_instance_as(heads)))).order_by("id")
                         .select_for_update(), self.settings.batch_size * 4)

    def _eligible(self, min_age: float) -> models.QuerySet[OutboxSignal]:
        """Pending rows the sender after commit has had ``min_age`` seconds for, or has tried."""
        pending = self._rows().filter(state=OutboxSignal.State.PENDING)
        if min_age <= 0:  # every pending row (also one whose occurred_at was edited into the future)
            return pending
        cutoff = timezone.now() - datetime.timedelta(seconds=min_age)
        return pending.filter(Q(attempts__gt=0) | Q(occurred_at__lte=cutoff))

    def _earlier_pending_of_same_instance(self) -> models.QuerySet[OutboxSignal]:
        # Rows without a primary key (instance_pk "") belong to no instance: nothing goes before them.
        # Failed rows never block the rest, so only pending ones count.
        return self._rows().filter(state=OutboxSignal.State.PENDING, app_label=OuterRef("app_label"), model_name=OuterRef("model_name"),
                                   instance_pk=OuterRef("instance_pk"), id__lt=OuterRef("id")).exclude(instance_pk="")

    def _same_instance_as(self, heads: list[int]) -> models.QuerySet[OutboxSignal]:
        return self._rows().filter(id__in=heads, app_label=OuterRef("app_label"), model_name=OuterRef("model_name"),
                                   instance_pk=OuterRef("instance_pk")).exclude(instance_pk="")
