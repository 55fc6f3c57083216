"""Moving over from django-action-triggers (the origin, app ``action_triggers``) with every save
delivered exactly once, by one system or the other, and a way back.

While both apps are installed, each save (or delete) is routed once, by one read of the
:class:`~.models.CutOver` row, and both sides follow that one route:

- **delivered by the origin** (until the cut-over): the origin runs its active configs as it
  always did; this app sends no signal that an imported config watches (the service holds that
  config as a trigger and would deliver it a second time).
- **delivered by the service** (after ``manage.py action_triggers_cutover --to service``): this
  app sends every listed signal; the origin runs only its active configs that were not imported
  (those with parts the service cannot hold).

So that one save is decided once, the origin's own receivers are replaced by this app's, which
call the origin's delivery for the configs routed to it.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django.apps import apps
from django.db import IntegrityError, models, router, transaction
from django.db.models import F, signals
from django.utils import timezone

from . import conf
from .models import CutOver, ImportedConfig

ORIGIN_APP = "action_triggers"


@dataclass(frozen=True)
class Route:
    delivered_by: str
    # (app_label.model_name, signal) that imported configs watch, and those configs' origin ids.
    watched: frozenset[tuple[str, str]]
    imported: frozenset[int]

    def sends(self, label: str, signal: str) -> bool:
        """Whether this app sends the signal to the service."""
        return self.delivered_by == CutOver.DeliveredBy.SERVICE or (label, signal) not in self.watched


_imported_by_version: dict[str, tuple[int, frozenset[tuple[str, str]], frozenset[int]]] = {}


@lru_cache(maxsize=1)
def origin_installed() -> bool:
    return apps.is_installed(ORIGIN_APP)  # asked on every save: the app registry does not change


def origin_watches(model: type[models.Model]) -> bool:
    """Whether the origin's registry holds the model (its ``whitelisted_content_types``): the real
    model class only, as the origin connected its receivers (not a migration's historical model)."""
    from action_triggers.registry import model_in_registry

    opts = model._meta
    try:
        registered = apps.get_registered_model(opts.app_label, opts.model_name) is model
    except LookupError:
        return False
    return registered and bool(model_in_registry(model))


def origin_database() -> str:
    """Where the origin reads its configs, and so where the route and the imported configs are read."""
    from action_triggers.models import Config

    return router.db_for_read(Config)


def route_for(using: str | None = None) -> Route | None:
    """The route of one save or delete (one query; the imported configs are read again only when
    they changed); None where the origin app is not installed. Read from the origin's database,
    whatever database the save is on: the origin decides from there too."""
    if not origin_installed():
        return None
    using = origin_database()
    row = CutOver.objects.using(using).filter(id=1).values_list("delivered_by", "version").first()
    delivered_by, version = row or (CutOver.DeliveredBy.ORIGIN, 0)
    cached = _imported_by_version.get(using)
    if cached is None or cached[0] != version:
        cached = (version, *_imported_configs(using))
        _imported_by_version[using] = cached
    return Route(delivered_by, cached[1], cached[2])


def _imported_configs(using: str) -> tuple[frozenset[tuple[str, str]], frozenset[int]]:
    from action_triggers.models import Config

    # Withheld from the service while on the origin: every imported config's signals, unsettled
    # ones too (their trigger may exist). Left out by the origin once on the service: settled ones
    # only (an unsettled create may have failed; a twin delivery beats a lost one).
    rows = list(ImportedConfig.objects.using(using).values_list("origin_config_id", "trigger_id"))
    watched = set()
    for config in Config.objects.using(using).filter(id__in=[r[0] for r in rows]).prefetch_related("content_types", "config_signals"):
        for ct in config.content_types.all():
            for s in config.config_signals.all():
                watched.add((f"{ct.app_label}.{ct.model}", s.signal))
    return frozenset(watched), frozenset(config_id for config_id, trigger_id in rows if trigger_id)


def not_listed(route: Route) -> list[str]:
    """The (model, signal) pairs imported configs watch that CONTENT_TYPES does not send: after
    the cut-over the origin no longer delivers them, so nobody would."""
    listed = conf.settings().content_types
    if listed is None:
        return []
    return sorted(f"{label} {signal}" for label, signal in route.watched if signal not in listed.get(label, ()))


def deliver_by_origin(route: Route | None, instance: models.Model, signal: signals.ModelSignal) -> None:
    """What the origin's receiver did, for the configs this route leaves to it."""
    if route is None:
        return
    from action_triggers.dispatch import handle_action
    from action_triggers.enums import SignalChoices
    from action_triggers.models import Config
    if not origin_watches(type(instance)):
        return
    configs = Config.objects.for_signal(SignalChoices.for_signal(signal)).for_model(instance).active()
    if route.delivered_by == CutOver.DeliveredBy.SERVICE:
        configs = configs.exclude(id__in=route.imported)
    for config in configs:
        handle_action(config, instance)


def take_over_origin_receivers() -> None:
    """Disconnects the origin's receivers (connected already, or about to be by its ``ready()``)."""
    from action_triggers import signals as origin

    original = origin.signal_callback
    origin.setup = lambda: None  # its ready() may come after this app's
    from action_triggers.registry import registered_models

    for model in registered_models.values():
        for sig in (signals.pre_save, signals.post_save, signals.pre_delete, signals.post_delete):
            sig.disconnect(original, sender=model)


def set_delivered_by(using: str, delivered_by: str) -> None:
    _change(using, delivered_by=delivered_by)


def _change(using: str, **fields: Any) -> None:
    # One UPDATE (a read and then a write in one SQLite transaction fails at once as "database is
    # locked" when another connection writes between them); the row is made on first use.
    values = {**fields, "version": F("version") + 1, "changed_at": timezone.now()}
    if CutOver.objects.using(using).filter(id=1).update(**values):
        return
    try:
        with transaction.atomic(using=using):
            CutOver.objects.using(using).create(id=1, version=1, **fields)
    except IntegrityError:
        CutOver.objects.using(using).filter(id=1).update(**values)


def connect() -> None:
    """What the route depends on changes its version: the imported configs, and the origin's
    configs, their signals and content types (so every process reads them again)."""
    senders = [ImportedConfig]
    if origin_installed():
        from action_triggers.models import Config, ConfigSignal

        senders += [Config, ConfigSignal]
        signals.m2m_changed.connect(_count_origin_change, sender=Config.content_types.through,
                                    dispatch_uid="action_triggers_client.cutover.content_types")
    for sender in senders:
        for sig in (signals.post_save, signals.post_delete):
            sig.connect(_count_origin_change, sender=sender, dispatch_uid=f"action_triggers_client.cutover.{sender.__name__}.{sig is signals.post_save}")


def _count_origin_change(sender: Any, **_: Any) -> None:
    _change(origin_database() if origin_installed() else "default")
