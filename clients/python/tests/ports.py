"""Loopback ports for servers a test starts later, or stops and starts again on the same port.

They come from below the kernel's ephemeral range: a port from that range (what binding port 0
gives) may be taken, between the pick and the bind, by any outgoing connection of any process (the
service then failed to start with EADDRINUSE). Below it only other pickers compete; each process
walks its own run of ports from a random start, so they rarely meet."""
from __future__ import annotations

import random
import socket
from pathlib import Path

LOWEST = 10_000


def _ephemeral_start() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768


_ABOVE_LAST = _ephemeral_start()
_next = random.randrange(LOWEST, _ABOVE_LAST)


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_port() -> int:
    """A loopback port free right now, never one this process was given before (until the run wraps)."""
    global _next
    while True:
        port = _next
        _next = LOWEST if port + 1 >= _ABOVE_LAST else port + 1
        if _bindable(port):
            return port
