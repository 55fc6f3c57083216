"""What django-action-triggers (the origin) still delivers on the current route, config by config,
and why the service does not: what would be lost if its app left ``INSTALLED_APPS`` now.

Routed to the origin, it delivers every active config. Routed to the service, it delivers each
active config without a settled import (``cutover.py``): one not carried over, one never
imported or whose create failed, one whose create is unsettled.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .models import CutOver, ImportedConfig
from .origin_import import delivered_by
from .origin_mapping import map_config

RUN_IMPORT = "`manage.py action_triggers_import`"


@dataclass(frozen=True)
class OriginDelivery:
    """An active origin config that the origin delivers, named as the import names it."""
    config_id: int
    why: str
    details: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"config {self.config_id}"

    def lines(self) -> list[str]:
        return [f"{self.name}: {self.why}", *(f"  {d}" for d in self.details)]


def origin_deliveries(using: str) -> list[OriginDelivery]:
    # Imported here: the origin app need not be installed for the rest of this app.
    from action_triggers.models import Config

    on_service = delivered_by(using) == CutOver.DeliveredBy.SERVICE
    trigger_ids = dict(ImportedConfig.objects.using(using).values_list("origin_config_id", "trigger_id"))
    found = []
    for config in Config.objects.using(using).filter(active=True).order_by("id"):
        trigger_id = trigger_ids.get(config.pk)
        if on_service and trigger_id:
            continue  # the service delivers it
        found.append(_why(config, trigger_id))
    return found


def _why(config: Any, trigger_id: str | None) -> OriginDelivery:
    config_id: int = config.pk
    if trigger_id:
        return OriginDelivery(config_id, f"imported as trigger {trigger_id}; the origin delivers it until "
                                         "`manage.py action_triggers_cutover --to service`")
    if trigger_id == "":
        return OriginDelivery(config_id, f"its create is unsettled: run {RUN_IMPORT} again (it adopts the trigger or creates it)")
    not_carried = map_config(config).not_carried
    if not_carried:
        return OriginDelivery(config_id, "not carried over (fix it in the origin and import it, or deactivate it)",
                              [str(n) for n in not_carried])
    return OriginDelivery(config_id, f"not imported: run {RUN_IMPORT} (it names why a create failed)")
