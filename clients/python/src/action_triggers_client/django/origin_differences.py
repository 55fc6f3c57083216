"""What the import's dry run says of one origin config besides its trigger body: every way the
bodies the service sends will differ from the origin's, the ``CONTENT_TYPES`` and ``EXPAND``
this app needs for the trigger to fire and render as the origin's did, and the service's
``aws_lambda`` brokers its origin actions need."""
from __future__ import annotations

from typing import Any

from django.apps import apps
from django.db import models

from . import conf
from .origin_mapping import lambda_entry, origin_actions
from .origin_templates import EXPRESSION, strings_of

NO_PAYLOAD = ("no payload: the service sends its envelope {signal, app_label, model_name, instance, signal_id, "
              "trigger_id, occurred_at}, where the origin sent the instance's fields alone (Django's serializer's \"fields\", "
              "no pk); a receiver reads body[\"instance\"], or import with --origin-shape to keep the origin's body")
DATE_TYPES = (models.DateTimeField, models.DateField, models.TimeField)


def differences(config: Any, labels: list[str], signals: list[str], origin_shape: bool = False) -> list[str]:
    settings = conf.settings()
    lines = _needed_settings(settings, labels, signals) + _needed_lambda_brokers(config)
    if config.payload is None and origin_shape:
        missing = [label for label in labels if label not in settings.origin_fields]
        return lines + ["no payload, origin shape: the body is the instance's fields as the origin sent them; needs ORIGIN_FIELDS "
                        f"to list {', '.join(labels)}" + (f"; missing now: {', '.join(missing)}" if missing else " (it does)")]
    if config.payload is None:
        return lines + [NO_PAYLOAD]
    typed, dated, related = [], [], []
    for path, text in strings_of(config.payload):
        if path.endswith(" (the key)"):
            continue
        found = [m.group(1).strip() for m in EXPRESSION.finditer(text)]
        if EXPRESSION.fullmatch(text.strip()):
            typed.append(path)
        for expr in found:
            parts = expr.split(".")
            if parts[0] != "instance" or len(parts) < 2:
                continue
            for label in labels:
                field = _field(label, parts[1])
                if isinstance(field, DATE_TYPES) and len(parts) == 2:
                    dated.append(f"{path} ({expr})")
                if field is not None and field.is_relation and len(parts) > 2 and parts[1] not in settings.expand.get(label, ()):
                    related.append(f"{path}: {expr} renders null unless EXPAND lists '{parts[1]}' for {label}")
    if typed:
        lines.append(f"a value alone in its string keeps its JSON type ({', '.join(sorted(set(typed)))}): "
                     "\"{{ instance.id }}\" sends 2 where the origin sent \"2\"")
    if dated:
        lines.append(f"dates and times are ISO 8601 (2026-11-29T06:00:00+00:00) where the origin used Django's "
                     f"format (Nov. 29, 2026, 6 a.m.): {', '.join(sorted(set(dated)))}")
    lines.extend(sorted(set(related)))
    return lines


def _needed_settings(settings: conf.Settings, labels: list[str], signals: list[str]) -> list[str]:
    listed = settings.content_types
    missing = [f"{label} ({', '.join(s for s in signals if listed is not None and s not in listed.get(label, ()))})"
               for label in labels if listed is not None and not set(signals) <= listed.get(label, frozenset())]
    needs = f"needs CONTENT_TYPES to list {', '.join(labels)} for {', '.join(signals)}"
    return [needs + (f"; missing now: {', '.join(missing)}" if missing else " (it does)")]


def _needed_lambda_brokers(config: Any) -> list[str]:
    entries: dict[str, list[dict[str, Any]]] = {}
    for action in origin_actions(config):
        entries.setdefault(action.name, []).append(lambda_entry(action))
    return [_lambda_broker_line(name, same_name) for name, same_name in entries.items()]


def _lambda_broker_line(name: str, entries: list[dict[str, Any]]) -> str:
    line = (f"origin action {name!r} needs the service's brokers.{name} with broker_type: aws_lambda (the origin's "
            f'ACTION_TRIGGERS["actions"]["{name}"], action_type becoming broker_type, the same conn_details with region '
            "and credentials, which the service never reads from its environment, params kept)")
    overrides = _overrides_needed(entries)
    return line + (f"; its trigger_overrides must list what the Action rows set: {overrides}" if overrides else "")


def _overrides_needed(entries: list[dict[str, Any]]) -> str:
    # The service lets a trigger set no conn_details key, and no FunctionName (it says where messages
    # go), unless the broker's trigger_overrides list it; a list of parameters allows those alone.
    conn = sorted({key for e in entries if isinstance(e.get("conn_details"), dict) for key in e["conn_details"]})
    params = sorted({key for e in entries if isinstance(e.get("parameters"), dict) for key in e["parameters"]})
    needed = [f"conn_details {', '.join(conn)}"] if conn else []
    if "FunctionName" in params:
        needed.append(f"parameters {', '.join(params)}")
    return "; ".join(needed)


def _field(label: str, name: str) -> Any:
    try:
        return apps.get_model(label)._meta.get_field(name)
    except LookupError:
        return None
    except Exception:  # noqa: BLE001 - FieldDoesNotExist: a property or a typo; the service renders null
        return None
