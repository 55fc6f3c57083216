"""Importing django-action-triggers' configs into the service, one config at a time.

The service picks trigger ids, so which trigger a config became is kept in
:class:`~.models.ImportedConfig`: a config with a row is never created again. The row is
written *before* the create and completed after it; a row left without a trigger id (the
answer was lost) makes the next run look for an identical trigger in the service and adopt
it rather than create a second one.

A config with parts the service cannot hold (a payload with Django template tags, filters or
unbalanced braces, named per field) is not imported at all: a trigger sending a tag as text would
quietly do less than before. The origin's AWS Lambda actions become entries naming the service's
``aws_lambda`` brokers. The dry run says, per config, how the bodies will differ from the origin's,
what the app's settings must list and which brokers the service needs. One config's failure never
stops the others.
"""
from __future__ import annotations

import dataclasses
import enum
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from ..client import RETRYABLE_STATUSES, ActionTriggersClient, ActionTriggersError, ProblemError, TriggerInput
from .models import CutOver, ImportedConfig
from .origin_differences import differences
from .origin_mapping import MappedConfig, map_config


# What the service adds to a stored trigger; the rest is the definition.
READ_ONLY_FIELDS = frozenset({"id", "version", "created_at", "updated_at", "deactivated_reason"})


class Outcome(enum.Enum):
    CREATED = "created"
    ADOPTED = "adopted (found in the service after an unsettled create)"
    WOULD_CREATE = "would create"
    ALREADY_IMPORTED = "already imported"
    NOT_CARRIED = "not carried over"
    FAILED = "failed"


@dataclass(frozen=True)
class ConfigResult:
    config_id: int
    trigger_id: str
    outcome: Outcome
    body: TriggerInput
    problems: list[str] = field(default_factory=list)


def origin_configs(using: str) -> Any:
    # Imported here: the origin app need not be installed for the rest of this app to work.
    from action_triggers.models import Config

    return Config.objects.using(using).order_by("id")


def import_configs(client: ActionTriggersClient, using: str, *, dry_run: bool, inactive: bool = False,
                   origin_shape: bool = False) -> Iterator[ConfigResult]:
    for config in origin_configs(using):
        mapped = map_config(config, origin_shape=origin_shape)
        if inactive:
            mapped = dataclasses.replace(mapped, body={**mapped.body, "active": False})
        row = ImportedConfig.objects.using(using).filter(origin_config_id=mapped.config_id).first()
        if row is not None and row.trigger_id:
            yield _result(mapped, row.trigger_id, Outcome.ALREADY_IMPORTED)
        elif mapped.not_carried:
            yield _result(mapped, "", Outcome.NOT_CARRIED, [str(n) for n in mapped.not_carried])
        elif dry_run:
            yield _result(mapped, "", Outcome.WOULD_CREATE, _still_active(config, using) + _differences(config, mapped, origin_shape))
        else:
            yield _create(client, mapped, using, row)


def _create(client: ActionTriggersClient, mapped: MappedConfig, using: str, row: ImportedConfig | None) -> ConfigResult:
    if row is None:
        row = ImportedConfig.objects.using(using).create(origin_config_id=mapped.config_id)
    else:
        try:
            found = _find_unclaimed_twin(client, mapped.body, using)
        except ActionTriggersError as e:
            return _result(mapped, "", Outcome.FAILED, [f"looking for the trigger of an unsettled create: {e}"])
        if found:
            _settle(row, found, using)
            return _result(mapped, found, Outcome.ADOPTED)
    try:
        created = client.create_trigger(mapped.body)
    except ProblemError as e:
        if not nothing_created(e):
            # A 5xx (a gateway's 502/504 among them), 408, 425, 429: the service may have created
            # the trigger before the answer was lost. The row stays unsettled; the next run adopts it.
            return _result(mapped, "", Outcome.FAILED, [f"{e} (the trigger may have been created: the next run "
                                                        "looks for it before creating one)"])
        row.delete(using=using)
        return _result(mapped, "", Outcome.FAILED, problem_lines(e, mapped))
    except ActionTriggersError as e:
        # The create may have happened: the row stays unsettled, and the next run looks first.
        return _result(mapped, "", Outcome.FAILED, [str(e)])
    _settle(row, created["id"], using)
    return _result(mapped, created["id"], Outcome.CREATED)


def _differences(config: Any, mapped: MappedConfig, origin_shape: bool) -> list[str]:
    labels = [f"{ct['app_label']}.{ct['model_name']}" for ct in mapped.body["content_types"]]
    return differences(config, labels, [s["signal"] for s in mapped.body["config_signals"]], origin_shape)


def _still_active(config: Any, using: str) -> list[str]:
    if not config.active or delivered_by(using) != CutOver.DeliveredBy.ORIGIN:
        return []
    return ["active in django-action-triggers: it goes on delivering these saves (and this app does not send them to the "
            "service) until `manage.py action_triggers_cutover --to service`; each save is delivered by one of the two"]


def delivered_by(using: str) -> str:
    row = CutOver.objects.using(using).filter(id=1).values_list("delivered_by", flat=True).first()
    return row or CutOver.DeliveredBy.ORIGIN


def nothing_created(error: ProblemError) -> bool:
    """Only a refusal of the request itself (a 4xx other than 408, 425 and 429) means the service
    created nothing; any other answer may come from a proxy after the service did."""
    return 400 <= error.status < 500 and error.status not in RETRYABLE_STATUSES


def _settle(row: ImportedConfig, trigger_id: str, using: str) -> None:
    row.trigger_id = trigger_id
    row.save(using=using, update_fields=["trigger_id", "updated_at"])


def _find_unclaimed_twin(client: ActionTriggersClient, body: TriggerInput, using: str) -> str | None:
    """A trigger in the service defined exactly as ``body`` and not yet linked to a config."""
    claimed = set(ImportedConfig.objects.using(using).exclude(trigger_id="").values_list("trigger_id", flat=True))
    first = body["content_types"][0] if body["content_types"] else None
    cursor = None
    while True:
        page = client.list_triggers(app_label=first and first["app_label"], model_name=first and first["model_name"],
                                    limit=100, cursor=cursor)
        for trigger in page.items:
            definition = {k: v for k, v in trigger.items() if k not in READ_ONLY_FIELDS}
            if trigger["id"] not in claimed and definition == body:
                return trigger["id"]
        if not page.next_cursor:
            return None
        cursor = page.next_cursor


def _result(mapped: MappedConfig, trigger_id: str, outcome: Outcome, problems: list[str] | None = None) -> ConfigResult:
    return ConfigResult(mapped.config_id, trigger_id, outcome, mapped.body, problems or [])


_ACTION_ITEM = re.compile(r"^(webhooks|msg_broker_queues)[.\[](\d+)")


def problem_lines(error: ProblemError, mapped: MappedConfig) -> list[str]:
    """One line per field the service refused, its path as the service names it."""
    if not error.errors:
        return [str(error)]
    return [f"{e.path}: {e.message}{_origin_row(e.path, mapped)}" for e in error.errors]


def _origin_row(path: str, mapped: MappedConfig) -> str:
    # `msg_broker_queues[0]` is the config's first queue by id (Action rows follow the queues): name the origin row.
    m = _ACTION_ITEM.match(path)
    rows = mapped.row_ids.get(m.group(1), []) if m else []
    if not m or int(m.group(2)) >= len(rows):
        return ""
    model, pk = rows[int(m.group(2))]
    return f" (origin {model} {pk})"
