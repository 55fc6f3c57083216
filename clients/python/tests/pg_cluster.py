"""A throwaway PostgreSQL cluster from Debian's binaries: initdb with trust auth, listening on
loopback only, on a free port, under a fresh directory in /tmp. Used as the whole session's
Django database (ATC_TEST_DATABASE=postgresql) and by test_relay_postgres.py."""
from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ports import free_port

CLUSTER_OWNER = "postgres"  # initdb and postgres refuse to run as root


class Unavailable(Exception):
    """Why this machine cannot run a cluster (the caller skips, or fails if it was asked for one)."""


@dataclass
class Cluster:
    port: int
    root: Path
    bin_dir: Path

    def createdb(self, name: str) -> None:
        _run([str(self.bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name])

    def stop(self) -> None:
        """Idempotent: the session stops it at its end and again at exit."""
        if not self.root.exists():
            return
        subprocess.run(_as_owner([str(self.bin_dir / "pg_ctl"), "-D", str(self.root / "data"), "-m", "immediate", "-w", "stop"]),
                       capture_output=True, timeout=60)
        shutil.rmtree(self.root, ignore_errors=True)


def _bin_dir() -> Path | None:
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (candidate / "initdb").exists() and (candidate / "pg_ctl").exists():
            return candidate
    return None


def _as_owner(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", CLUSTER_OWNER, "--", *cmd] if os.geteuid() == 0 else cmd


def _run(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)
    if done.returncode != 0:
        raise RuntimeError(f"{cmd}: {done.stdout}{done.stderr}")
    return done


def start() -> Cluster:
    bin_dir = _bin_dir()
    if bin_dir is None:
        raise Unavailable("PostgreSQL's initdb/pg_ctl are not installed (scripts/install-tools.sh installs Debian's postgresql)")
    owner = None
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam(CLUSTER_OWNER)
        except KeyError:
            raise Unavailable(f"running as root and there is no '{CLUSTER_OWNER}' user to own the test cluster") from None
    # Under /tmp itself: pytest's tmp_path is private to root, which the cluster owner cannot enter.
    root = Path(tempfile.mkdtemp(prefix="atc-pg-"))
    if owner is not None:
        os.chown(root, owner.pw_uid, owner.pw_gid)
    cluster = Cluster(port=free_port(), root=root, bin_dir=bin_dir)
    data = root / "data"
    _run(_as_owner([str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"]))
    options = f"-c listen_addresses=127.0.0.1 -p {cluster.port} -k {root} -c fsync=off -c max_connections=50"
    _run(_as_owner([str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(root / "postgres.log"), "-o", options, "-w", "start"]))
    return cluster
