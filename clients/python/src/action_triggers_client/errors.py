"""The client's errors: the service out of reach, or an error answer (problem+json)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

RETRYABLE_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})


def _str_or_none(v: Any) -> str | None:
    return v if isinstance(v, str) else None


@dataclass(frozen=True)
class FieldError:
    """One bad field of a refused request, e.g. ``path="[1].model_name"``."""
    path: str
    message: str


class ActionTriggersError(Exception):
    """Base class of this client's errors."""


class TransportError(ActionTriggersError):
    """The service could not be reached (connection refused, reset, timed out), after retries."""

    def __init__(self, message: str, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.cause = cause


class ProblemError(ActionTriggersError):
    """An error answer; ``problem`` is its RFC 9457 problem+json body (or ``{}``)."""

    def __init__(self, status: int, problem: Mapping[str, Any], headers: Mapping[str, str] | None = None) -> None:
        self.status = status
        self.problem: dict[str, Any] = dict(problem)
        self.headers = dict(headers or {})
        self.type: str | None = _str_or_none(problem.get("type"))
        self.title: str | None = _str_or_none(problem.get("title"))
        self.detail: str | None = _str_or_none(problem.get("detail"))
        raw_errors = problem.get("errors")
        self.errors: list[FieldError] = [
            FieldError(str(e.get("path", "")), str(e.get("message", "")))
            for e in (raw_errors if isinstance(raw_errors, list) else []) if isinstance(e, dict)
        ]
        text = f"{status} {self.title or ''}: {self.detail or ''}".strip().rstrip(":")
        if self.errors:
            text += " (" + "; ".join(f"{e.path}: {e.message}" for e in self.errors) + ")"
        super().__init__(text)

    @property
    def retryable(self) -> bool:
        return self.status in RETRYABLE_STATUSES


class RedirectRefused(ActionTriggersError):
    """The service's address answered with a redirect, which is never followed: the API key would
    go along to wherever it points. Put the final address in ``base_url``."""

    def __init__(self, status: int, method: str, url: str, location: str | None) -> None:
        self.status = status
        self.location = location
        where = f" to {location}" if location else ""
        super().__init__(f"{method} {url} answered {status}, a redirect{where}; redirects are not followed "
                         "(the API key would go along): set the base URL to the final address")
