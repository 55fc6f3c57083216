"""The outbox: one row per model signal, written in the transaction of the change."""
from __future__ import annotations

import secrets

from django.db import IntegrityError, models, transaction


def new_row_token() -> str:
    """A row's random part of its signal id (see :func:`signal_id`)."""
    return secrets.token_hex(5)


class OutboxSignal(models.Model):
    class State(models.TextChoices):
        PENDING = "pending", "pending"
        SENT = "sent", "sent"
        FAILED = "failed", "failed (refused by the service)"

    id = models.BigAutoField(primary_key=True)
    signal = models.CharField(max_length=16)
    app_label = models.CharField(max_length=100)
    model_name = models.CharField(max_length=100)
    instance_pk = models.CharField(max_length=255, blank=True, default="",
                                   help_text="The instance's primary key as text; rows of one instance are sent in id order.")
    instance = models.JSONField()
    previous = models.JSONField(null=True, blank=True,
                                help_text="The stored row before the change (post_save of a model in SEND_PREVIOUS); null: none sent.")
    occurred_at = models.DateTimeField()
    state = models.CharField(max_length=8, choices=State.choices, default=State.PENDING)
    attempts = models.PositiveIntegerField(default=0, help_text="Requests that did not settle the row (service away, 5xx).")
    last_error = models.TextField(blank=True, default="", help_text="Why the service refused the row, or the last transient error.")
    sent_at = models.DateTimeField(null=True, blank=True)
    token = models.CharField(max_length=16, blank=True, null=True, default=new_row_token, editable=False,
                             help_text="Random, the last part of the row's signal id: a row id reissued after a restore is a new signal.")

    class Meta:
        ordering = ["id"]
        verbose_name = "outbox signal"
        indexes = [
            models.Index(fields=["state", "id"], name="atc_outbox_state_id"),
            models.Index(fields=["app_label", "model_name", "instance_pk", "id"], name="atc_outbox_instance"),
        ]

    def __str__(self) -> str:
        return f"#{self.id} {self.signal} {self.app_label}.{self.model_name} {self.instance_pk or '(no pk)'} ({self.state})"


class Emitter(models.Model):
    """One row: a random name for this database, the first part of every signal id.

    Signal ids are ``dj-<name>-<row id>-<row token>``: stable for a row, so sending it twice is
    one dispatch; a fresh database (whose row ids start again at 1) has another name, and a
    restored one (the same name, row ids reissued) gives its new rows new tokens, so neither
    reuses an id the service has already seen."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    name = models.CharField(max_length=32)

    class Meta:
        verbose_name = "emitter identity"
        verbose_name_plural = "emitter identities"

    def __str__(self) -> str:
        return self.name

    @classmethod
    def name_for(cls, using: str) -> str:
        found = cls.objects.using(using).filter(id=1).values_list("name", flat=True).first()
        if found:
            return found
        try:
            with transaction.atomic(using=using):
                cls.objects.using(using).create(id=1, name=secrets.token_hex(6))
        except IntegrityError:
            pass
        return cls.objects.using(using).get(id=1).name


def signal_id(emitter: str, row_id: int, token: str | None) -> str:
    # Rows written before tokens existed keep the id they may already have been sent with.
    return f"dj-{emitter}-{row_id}-{token}" if token else f"dj-{emitter}-{row_id}"


class ImportedConfig(models.Model):
    """Which service trigger an origin (django-action-triggers) ``Config`` was imported as.

    The service picks trigger ids itself, so the link is kept here. A row without
    ``trigger_id`` is a create whose answer never came back (a crash, a lost connection): the
    next import looks for that trigger in the service before creating one."""

    origin_config_id = models.BigIntegerField(unique=True, help_text="The id of the origin's action_triggers Config.")
    trigger_id = models.CharField(max_length=36, blank=True, default="", help_text="Empty while the create is unsettled.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["origin_config_id"]
        verbose_name = "imported origin config"

    def __str__(self) -> str:
        return f"origin Config {self.origin_config_id} -> {self.trigger_id or '(create unsettled)'}"


class CutOver(models.Model):
    """One row: which system delivers the saves that django-action-triggers' imported configs
    watch, while both are installed (see ``cutover.py``). No row: the origin."""

    class DeliveredBy(models.TextChoices):
        ORIGIN = "origin", "django-action-triggers (the origin)"
        SERVICE = "service", "the action-triggers service"

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    delivered_by = models.CharField(max_length=8, choices=DeliveredBy.choices, default=DeliveredBy.ORIGIN)
    version = models.PositiveIntegerField(default=0, help_text="Counts changes of this row and of the imported configs.")
    changed_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "cut-over from django-action-triggers"
        verbose_name_plural = "cut-over from django-action-triggers"

    def __str__(self) -> str:
        return f"imported configs delivered by {self.delivered_by}"
