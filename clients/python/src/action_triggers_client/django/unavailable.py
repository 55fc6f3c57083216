"""What a pass of sending comes to, and the one failure that leaves rows pending."""
from __future__ import annotations

from dataclasses import dataclass


class ServiceUnavailable(Exception):
    """The service could not take the rows now; they stay pending."""


@dataclass
class Outcome:
    sent: int = 0
    failed: int = 0

    def __iadd__(self, other: "Outcome") -> "Outcome":
        self.sent += other.sent
        self.failed += other.failed
        return self
