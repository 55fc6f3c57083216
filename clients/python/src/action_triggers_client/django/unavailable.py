"""What a pass of sending comes to, and the one failure that leaves rows pending."""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import ProblemError


class ServiceUnavailable(Exception):
    """The service could not take the rows now; they stay pending."""


def unavailable_reason(error: ProblemError) -> str:
    """What a refusal that is not the rows' fault means, and the setting to look at."""
    setting = "ACTION_TRIGGERS_CLIENT"
    if error.status == 401:
        return f"the service refused the API key ({error}): set {setting}['API_KEY'] to a key of the service's"
    if error.status == 403:
        return f"the API key may not send signals ({error}): give {setting}['API_KEY'] a key with scope signals:write"
    if error.status in (404, 405):
        return f"no action-triggers service at this address ({error}): check {setting}['BASE_URL']"
    if error.status == 413:
        return f"a proxy refused the request's size ({error}): set {setting}['MAX_BATCH_BYTES'] below its body limit"
    if 400 <= error.status < 500 and error.status not in (408, 425, 429):
        return f"a refusal that is not the service's (not problem+json: a proxy?) ({error}): check {setting}['BASE_URL']"
    return str(error)


@dataclass
class Outcome:
    sent: int = 0
    failed: int = 0

    def __iadd__(self, other: "Outcome") -> "Outcome":
        self.sent += other.sent
        self.failed += other.failed
        return self
