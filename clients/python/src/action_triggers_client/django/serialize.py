"""An instance as JSON, the way Django's serializer sees it, plus expanded relations.

Concrete fields by name (a ForeignKey or OneToOne as the related id, as ``serializers.serialize``
writes it), ``pk`` and the primary key under its own name. Dates and times are ISO 8601,
decimals and UUIDs strings, files their name, binary data base64, durations ISO 8601. A
relation named in ``EXPAND`` is replaced by the related object, serialised the same way (a
list of them for a many-to-many or reverse foreign key); dotted names go deeper
(``"customer.company"``). Expanding reads the database without filling the instance's caches.
Fields whose names say they hold secrets (:func:`is_secret_field`) are left out, at every level,
unless ``SEND_SECRET_FIELDS`` names them for their model.
"""
from __future__ import annotations

import base64
import datetime
import decimal
import enum
import json
import math
import re
import uuid
from typing import Any, Iterable, Mapping

from django.db import models
from django.db.models.fields.files import FieldFile
from django.utils.duration import duration_iso_string
from django.utils.functional import Promise

MAX_EXPANDED_ITEMS = 100  # per to-many relation: a signal is at most 256 KiB at the service
# Names of fields that hold secrets: passwords and their hashes, tokens, keys of APIs and sessions.
SECRET_NAME = re.compile(r"pass(word|wd|phrase)|secret|token|credential|^key$|(api|access|private|encryption|signing|session|otp)_?key"
                         r"|session_?data|otp_?seed")


def is_secret_field(name: str) -> bool:
    return bool(SECRET_NAME.search(name.lower()))


def json_safe(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return duration_iso_string(value)
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, FieldFile):
        return value.name or None
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, enum.Enum):
        return json_safe(value.value)
    if isinstance(value, Promise):
        return str(value)
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [json_safe(v) for v in value]
    return str(value)


def serialize(instance: models.Model, using: str, expand: Iterable[str] = (), *, skip_deferred: bool = False,
              send_secret_fields: Mapping[str, frozenset[str]] | None = None) -> dict[str, Any]:
    """``skip_deferred``: leave out fields not loaded (after a delete they can no longer be)."""
    opts = instance._meta
    secrets_ok = send_secret_fields or {}
    chosen = secrets_ok.get(opts.label_lower, frozenset())
    deferred = instance.get_deferred_fields() if skip_deferred else set()
    out: dict[str, Any] = {}
    for field in opts.concrete_fields:
        if field.attname in deferred:
            continue
        if is_secret_field(field.name) and field.name not in chosen:
            continue
        # A link whose value is the other row's secret key (a session's, a token's) is that secret.
        if field.is_relation and is_secret_field(field.target_field.name) and field.name not in chosen:
            continue
        if field.is_relation:
            # The related id, as Django's serializer writes it (never loads the related row).
            out[field.name] = json_safe(getattr(instance, field.attname))
        else:
            out[field.name] = json_safe(field.value_from_object(instance))
    if opts.pk.name in out or not is_secret_field(opts.pk.name):  # a session's key is its primary key
        out["pk"] = json_safe(instance.pk)
        out[opts.pk.name] = json_safe(instance.pk)
    tree = _tree(expand)
    for name, deeper in tree.items():
        if not is_secret_field(name) or name in chosen:
            out[name] = _expanded(instance, name, deeper, using, secrets_ok)
    return out


ORIGIN_FIELDS_KEY = "__fields__"


def origin_fields(instance: models.Model, send_secret_fields: Mapping[str, frozenset[str]] | None = None) -> dict[str, Any]:
    """What django-action-triggers sent with no payload: Django's JSON serializer's ``fields`` of the
    instance (no pk; many-to-many as ids), less the fields that hold secrets (as above)."""
    from django.core import serializers

    fields = json.loads(serializers.serialize("json", [instance], use_natural_primary_keys=True))[0]["fields"]
    chosen = (send_secret_fields or {}).get(instance._meta.label_lower, frozenset())
    return {k: v for k, v in fields.items() if not is_secret_field(k) or k in chosen}


def _tree(paths: Iterable[str]) -> dict[str, list[str]]:
    tree: dict[str, list[str]] = {}
    for path in paths:
        head, _, rest = path.partition(".")
        tree.setdefault(head, [])
        if rest:
            tree[head].append(rest)
    return tree


def _expanded(instance: models.Model, name: str, deeper: list[str], using: str, secrets_ok: Mapping[str, frozenset[str]]) -> Any:
    try:
        field = instance._meta.get_field(name)
    except Exception:
        return None  # not a field of this model: checked at start (checks.py), so only in odd cases
    if not field.is_relation:
        return json_safe(getattr(instance, name, None))
    related = field.related_model
    if field.many_to_one or (field.one_to_one and field.concrete):
        if field.is_cached(instance):
            obj = field.get_cached_value(instance)
        else:
            target = getattr(instance, field.attname)
            if target is None:
                return None
            obj = related._base_manager.using(using).filter(**{field.target_field.attname: target}).first()
        return None if obj is None else serialize(obj, using, deeper, send_secret_fields=secrets_ok)
    if instance.pk is None:
        return [] if (field.many_to_many or field.one_to_many) else None
    if field.one_to_one:  # the reverse side of a OneToOne
        obj = related._base_manager.using(using).filter(**{field.field.name: instance.pk}).first()
        return None if obj is None else serialize(obj, using, deeper, send_secret_fields=secrets_ok)
    if field.many_to_many or field.one_to_many:
        manager = getattr(instance, field.name if field.concrete else field.get_accessor_name())
        rows = manager.all().using(using).order_by("pk")[:MAX_EXPANDED_ITEMS]
        return [serialize(obj, using, deeper, send_secret_fields=secrets_ok) for obj in rows]
    return None
