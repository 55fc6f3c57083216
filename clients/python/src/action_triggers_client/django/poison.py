"""Outbox rows that cannot be read back or sent as JSON (a lone surrogate or NaN in a JSONField, a
value a field cannot decode, a date edited by hand): each is found on its own and set aside as
``failed`` with its reason, so it never holds back the rows after it."""
from __future__ import annotations

import json
import math
from typing import Any, Callable

from django.db import DatabaseError, DataError, models, transaction

from .models import OutboxSignal

SetAside = Callable[[int, str], None]


def load_rows(query: models.QuerySet[OutboxSignal], limit: int, set_aside: SetAside) -> list[OutboxSignal]:
    """The first ``limit`` rows of ``query`` (ordered, not sliced). When reading them fails for a
    reason of a row's (a value Python or the database driver cannot convert: Django's ValueError,
    PostgreSQL's DataError for an infinite date) rather than of the database being away (which
    the caller backs off from), they are read one by one and each row that cannot be read is
    handed to ``set_aside`` with why. Each read is its own savepoint: on PostgreSQL a failed
    statement would otherwise abort the caller's transaction."""
    try:
        with transaction.atomic(using=query.db):
            return list(query[:limit])
    except DataError:
        pass
    except DatabaseError:
        raise
    except Exception:  # noqa: BLE001 - which row, and why, is found below
        pass
    rows: list[OutboxSignal] = []
    for row_id in list(query.values_list("id", flat=True)[:limit]):
        try:
            with transaction.atomic(using=query.db):
                rows.extend(query.filter(id=row_id))
        except DataError as e:
            set_aside(row_id, f"the row cannot be read: {type(e).__name__}: {str(e).strip()}")
        except DatabaseError:
            raise
        except Exception as e:  # noqa: BLE001
            set_aside(row_id, f"the row cannot be read: {type(e).__name__}: {e}")
    return rows


def encoded_size(signal: dict[str, Any]) -> int:
    """The signal's bytes in a batch (with its comma). Raises ``ValueError`` (``UnicodeEncodeError``
    among them) for what JSON text cannot carry: a lone surrogate, NaN or infinity."""
    return len(json.dumps(signal, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")) + 1


def unsendable_reason(signal: dict[str, Any] | None, error: Exception) -> str:
    where = _first_unencodable(signal, "") if signal is not None else None
    return f"the row cannot be sent as JSON: {where or f'{type(error).__name__}: {error}'}"


def _first_unencodable(value: Any, path: str) -> str | None:
    """The path of the first value JSON text cannot carry, and what it is."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            return f"{path or '(value)'}: {e.reason} ({value[e.start:e.end]!r} at character {e.start})"
    elif isinstance(value, float) and not math.isfinite(value):
        return f"{path or '(value)'}: {value} is not a JSON number"
    elif isinstance(value, dict):
        for key, item in value.items():
            inner = f"{path}.{key}" if path else str(key)
            found = _first_unencodable(key, f"{inner} (the key)") if isinstance(key, str) else None
            found = found or _first_unencodable(item, inner)
            if found:
                return found
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found = _first_unencodable(item, f"{path}[{i}]")
            if found:
                return found
    return None
