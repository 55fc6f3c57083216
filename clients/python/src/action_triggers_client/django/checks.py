"""System checks of ``ACTION_TRIGGERS_CLIENT`` against the installed models: a model or relation
that does not exist is an error naming it, the closest valid names and the choices, so a typo
stops ``manage.py check``, ``migrate``, ``runserver`` and the relay instead of silently sending
nothing (or ``null``). So is a model in ``SEND_PREVIOUS`` whose post_save is not sent: its
``previous`` would never leave, and a transition condition would never hold."""
from __future__ import annotations

import difflib
from typing import Any, Iterable

from django.apps import apps
from django.core import checks
from django.db import models

from . import conf

PREFIX = "action_triggers_client"
APP_LABEL = "action_triggers_client"


def _choices(names: Iterable[str]) -> str:
    listed = sorted(names)
    return ", ".join(listed[:40]) + (f", … ({len(listed) - 40} more)" if len(listed) > 40 else "")


def _did_you_mean(name: str, names: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(names), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'? " if close else ""


def _model(label: str) -> type[models.Model] | None:
    try:
        return apps.get_model(label)
    except (LookupError, ValueError):
        return None


def _unknown_model(key: str, label: str, id_: str) -> checks.Error:
    labels = [m._meta.label_lower for m in apps.get_models()]
    app = label.split(".")[0]
    same_app = [m._meta.model_name for m in apps.get_models() if m._meta.app_label == app]
    where = f"models of app '{app}': {_choices(same_app)}" if same_app else f"installed models: {_choices(labels)}"
    return checks.Error(f"{conf.SETTING}['{key}'] names '{label}', which is no installed model",
                        hint=f"{_did_you_mean(label, labels)}{where}", id=id_)


def _sends_post_save(settings: conf.Settings, label: str) -> bool:
    cts = settings.content_types
    return label.split(".")[0] != APP_LABEL and (cts is None or "post_save" in cts.get(label, ()))


def _not_sent(key: str, label: str, settings: conf.Settings, id_: str) -> checks.Error:
    cts = settings.content_types
    if label.split(".")[0] == APP_LABEL:
        why = "this app's own models are never sent"
    elif cts is not None and label in cts:
        why = f"CONTENT_TYPES sends only {', '.join(s for s in conf.SIGNALS if s in cts[label])} of it"
    else:
        why = "CONTENT_TYPES does not list it"
    sent = sorted(name for name, signals in (cts or {}).items() if "post_save" in signals)
    return checks.Error(f"{conf.SETTING}['{key}'] names '{label}', whose post_save is not sent ({why}): "
                        "the instance before the change goes only with a post_save that is sent",
                        hint=f"send post_save of '{label}' (CONTENT_TYPES) or take it out of {key}; "
                             f"models whose post_save is sent: {_choices(sent) or '(none)'}", id=id_)


def _relations(model: type[models.Model]) -> dict[str, Any]:
    return {f.name: f for f in model._meta.get_fields() if f.is_relation}


def _check_path(key: str, label: str, model: type[models.Model], path: str) -> checks.Error | None:
    current = model
    for i, name in enumerate(path.split(".")):
        relations = _relations(current)
        field = relations.get(name)
        if field is None or field.related_model is None:
            at = ".".join(path.split(".")[:i + 1])
            return checks.Error(
                f"{conf.SETTING}['{key}']['{label}'] names '{path}': '{at}' is no relation of {current._meta.label_lower}",
                hint=f"{_did_you_mean(name, relations)}relations of {current._meta.label_lower}: {_choices(relations) or '(none)'}",
                id=f"{PREFIX}.E003")
        current = field.related_model
    return None


@checks.register()
def check_settings(app_configs: Any = None, **_: Any) -> list[checks.CheckMessage]:
    settings = conf.settings()
    found: list[checks.CheckMessage] = []
    if not settings.content_types_set:
        found.append(checks.Warning(
            f"{conf.SETTING}['CONTENT_TYPES'] is not set: no model's changes are sent to the service",
            hint="list the models to send, e.g. [\"shop.order\"] (or {\"shop.order\": [\"post_save\"]}), "
                 f"or send every model's with '{conf.ALL}'", id=f"{PREFIX}.W001"))
    for label in (settings.content_types or {}):
        if _model(label) is None:
            found.append(_unknown_model("CONTENT_TYPES", label, f"{PREFIX}.E001"))
    for label in sorted(settings.origin_fields):
        if _model(label) is None:
            found.append(_unknown_model("ORIGIN_FIELDS", label, f"{PREFIX}.E006"))
    for label in sorted(settings.send_previous or ()):
        if _model(label) is None:
            found.append(_unknown_model("SEND_PREVIOUS", label, f"{PREFIX}.E007"))
        elif not _sends_post_save(settings, label):
            found.append(_not_sent("SEND_PREVIOUS", label, settings, f"{PREFIX}.E008"))
    for label, paths in settings.expand.items():
        model = _model(label)
        if model is None:
            found.append(_unknown_model("EXPAND", label, f"{PREFIX}.E002"))
            continue
        found.extend(e for e in (_check_path("EXPAND", label, model, p) for p in paths) if e)
    for label, names in settings.send_secret_fields.items():
        model = _model(label)
        if model is None:
            found.append(_unknown_model("SEND_SECRET_FIELDS", label, f"{PREFIX}.E004"))
            continue
        fields = [f.name for f in model._meta.concrete_fields]
        for name in sorted(set(names) - set(fields)):
            found.append(checks.Error(f"{conf.SETTING}['SEND_SECRET_FIELDS']['{label}'] names '{name}', which is no field of {label}",
                                      hint=f"{_did_you_mean(name, fields)}fields: {_choices(fields)}", id=f"{PREFIX}.E005"))
    return found
