"""The test session: a real action-triggers service (with its own Temporal dev server), a real
webhook receiver, and the Django test project on a SQLite file. Nothing is mocked."""
from __future__ import annotations

import atexit
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parents[2]
TMP = Path(tempfile.mkdtemp(prefix="atc-python-"))
# This checkout's client first (also in the relay subprocesses), whatever the venv installed.
SRC = str(TESTS.parent / "src")
os.environ["PYTHONPATH"] = os.pathsep.join([SRC, *filter(None, [os.environ.get("PYTHONPATH")])])
sys.path[:0] = [SRC, str(TESTS)]

import pg_cluster  # noqa: E402
from ports import free_port  # noqa: E402

SERVICE_PORT = free_port()
SERVICE_URL = f"http://127.0.0.1:{SERVICE_PORT}"

# Before Django loads: the relay subprocesses read the same environment.
os.environ["ATC_TEST_DB"] = str(TMP / "db.sqlite3")
os.environ["ATC_BASE_URL"] = SERVICE_URL
os.environ["ATC_MEDIA_ROOT"] = str(TMP / "media")
os.environ["DJANGO_SETTINGS_MODULE"] = "testproject.settings"

# The session's Django database: the SQLite file above, or with ATC_TEST_DATABASE=postgresql a
# cluster of its own (stopped in pytest_sessionfinish).
SESSION_CLUSTER = None
if os.environ.get("ATC_TEST_DATABASE") == "postgresql":
    SESSION_CLUSTER = pg_cluster.start()  # no skip: a pass that asked for PostgreSQL fails without it
    # Also when the session ends before pytest_sessionfinish (this module failing to load).
    atexit.register(SESSION_CLUSTER.stop)
    SESSION_CLUSTER.createdb("atc")
    os.environ["ATC_TEST_PG_PORT"] = str(SESSION_CLUSTER.port)

import django  # noqa: E402

django.setup()
from django.core.management import call_command  # noqa: E402

call_command("migrate", verbosity=0)


# ---- the service --------------------------------------------------------------------------

BROKER = {"broker_type": "rabbitmq", "conn_details": {"host": "127.0.0.1", "port": "5672"}, "params": {"queue": "orders"}}
# The service's broker for the origin's Lambda action of the same name (test_import.py); nothing invokes it.
# The origin's Action rows name their function, so triggers may set FunctionName (and a region) here.
LAMBDA_BROKER = {
    "broker_type": "aws_lambda",
    "conn_details": {"region_name": "us-east-1", "aws_access_key_id": "test", "aws_secret_access_key": "test",
                     "endpoint_url": "http://127.0.0.1:9"},
    "params": {},
    "trigger_overrides": {"conn_details": ["region_name"],
                          "parameters": ["FunctionName", "Qualifier", "InvocationType", "payload_encoding"]},
}


class Service:
    def __init__(self) -> None:
        self.url = SERVICE_URL
        self.data_dir = TMP / "service-data"
        self.log_path = TMP / "service.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        config = TMP / "service-config.json"
        # Two brokers, for test_import.py's queues and Lambda actions; nothing publishes to them.
        brokers = {"orders": BROKER, "aws_lambda_fn": LAMBDA_BROKER}
        config.write_text(json.dumps({"allow_private_targets": True, "brokers": brokers, "retry": {
            "initial_interval_secs": 0.2, "backoff_coefficient": 2, "max_interval_secs": 1, "max_attempts": 5}}))
        env = {k: v for k, v in os.environ.items() if k not in ("TEMPORAL_ADDRESS", "API_KEYS")}
        env.update({
            "DATA_DIR": str(self.data_dir), "PORT": str(SERVICE_PORT), "HOST": "127.0.0.1",
            "ACTION_TRIGGERS_CONFIG": str(config), "TEMPORAL_DEV_SERVER_PORT": str(free_port()),
            "TEMPORAL_UI_PORT": str(free_port()), "TEMPORAL_CLI_PATH": str(REPO / ".tools/temporal/bin/temporal"),
            "LOG_LEVEL": "warn",
        })
        # The build, as `npm start` runs it (npm install and the jest run build dist/).
        self.proc = subprocess.Popen(["node", "dist/src/main.js"], cwd=REPO, env=env,
                                     stdout=self.log_path.open("ab"), stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the service exited ({self.proc.returncode}); log: {self.log_path}\n{self.log_tail()}")
            if self.ready():
                return
            time.sleep(0.3)
        raise RuntimeError(f"the service was not ready in 120 s; log: {self.log_path}\n{self.log_tail()}")

    def ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/readyz", timeout=2) as res:
                return res.status == 200
        except Exception:
            return False

    def log_tail(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-3000:]
        except OSError:
            return ""

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        try:  # whatever the service started (its Temporal dev server) goes with it
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass


@pytest.fixture(scope="session")
def service() -> Iterator[Service]:
    svc = Service()
    try:
        svc.start()
        yield svc
    finally:
        svc.stop()


# ---- the webhook receiver -------------------------------------------------------------------

class Receiver:
    """Records every request: path, headers (lower-case), JSON body."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def _handle(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                with receiver.lock:
                    receiver.requests.append({"path": self.path, "method": self.command, "body": body,
                                              "headers": {k.lower(): v for k, v in self.headers.items()}})
                self.send_response(204)
                self.end_headers()

            do_POST = do_PUT = do_GET = _handle

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def matching(self, pred: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        with self.lock:
            return [r for r in self.requests if pred(r)]

    def wait_for(self, pred: Callable[[dict[str, Any]], bool], count: int = 1, timeout: float = 30,
                 key: Callable[[dict[str, Any]], Any] | None = None) -> list[dict[str, Any]]:
        """Requests matching `pred`, once there are `count` of them (or of distinct `key`s: a retried
        attempt the receiver already got is not a new delivery), or at `timeout`."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.matching(pred)
            seen = len(found) if key is None else len({key(r) for r in found})
            if seen >= count or time.monotonic() > deadline:
                return found
            time.sleep(0.05)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="session")
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


@pytest.fixture(scope="session")
def client(service: Service):
    from action_triggers_client.client import ActionTriggersClient

    return ActionTriggersClient(service.url)


@pytest.fixture(scope="session")
def triggers(client, receiver: Receiver) -> dict[str, Any]:
    """Two triggers on the shop's listed models: one with a payload template (orders, post_save),
    one without (every signal: the service sends its envelope, which names the signal)."""
    templated = client.create_trigger({
        "config_signals": [{"signal": "post_save"}],
        "content_types": [{"app_label": "shop", "model_name": "order"}],
        "webhooks": [{"url": f"{receiver.url}/templated", "http_method": "POST"}],
        "active": True,
        "payload": {"order": "{{ instance.id }}", "customer": "{{ instance.customer.name }}",
                    "text": "Order {{ instance.id }} for {{ instance.customer.name }}, total {{ instance.total }}"},
    })
    envelope = client.create_trigger({
        "config_signals": [{"signal": s} for s in ("pre_save", "post_save", "pre_delete", "post_delete")],
        "content_types": [{"app_label": "shop", "model_name": m} for m in ("customer", "order", "profile", "tag")],
        "webhooks": [{"url": f"{receiver.url}/envelope", "http_method": "POST"}],
        "active": True,
    })
    return {"templated": templated, "envelope": envelope}


@pytest.fixture(autouse=True)
def clean_outbox():
    from action_triggers_client.django.models import OutboxSignal

    OutboxSignal.objects.all()._raw_delete("default")  # also rows a test made unreadable
    yield


def envelope_for(receiver: Receiver, model: str, signal: str, key: str, value: Any) -> Callable[[dict[str, Any]], bool]:
    def pred(r: dict[str, Any]) -> bool:
        b = r["body"]
        return (r["path"] == "/envelope" and isinstance(b, dict) and b.get("model_name") == model and b.get("signal") == signal
                and isinstance(b.get("instance"), dict) and b["instance"].get(key) == value)
    return pred


def relay_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def manage(*args: str) -> list[str]:
    return [sys.executable, str(TESTS / "manage.py"), *args]


def pytest_sessionfinish(session, exitstatus) -> None:
    import shutil

    if SESSION_CLUSTER is not None:
        SESSION_CLUSTER.stop()
    if exitstatus == 0:  # kept after a failure: the service's log and the database are in it
        shutil.rmtree(TMP, ignore_errors=True)
