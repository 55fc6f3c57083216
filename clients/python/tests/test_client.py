"""The plain client against the real service, and its retries against a real flaky server."""
from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from action_triggers_client.client import ActionTriggersClient, ProblemError, RetryPolicy, TransportError
from ports import free_port


def _trigger(receiver_url: str, model: str) -> dict[str, Any]:
    return {"config_signals": [{"signal": "post_save"}], "content_types": [{"app_label": "crud", "model_name": model}],
            "webhooks": [{"url": f"{receiver_url}/crud", "http_method": "post"}], "active": True,
            "payload": {"id": "{{ instance.id }}"}}


def test_trigger_crud(client: ActionTriggersClient, receiver) -> None:
    model = f"m{uuid.uuid4().hex[:8]}"
    created = client.create_trigger(_trigger(receiver.url, model))
    assert created["version"] == 1 and created["webhooks"][0]["http_method"] == "POST"
    assert client.get_trigger(created["id"])["content_types"] == [{"app_label": "crud", "model_name": model}]

    page = client.list_triggers(model_name=model)
    assert [t["id"] for t in page.items] == [created["id"]] and page.next_cursor is None

    replaced = client.replace_trigger(created["id"], {**_trigger(receiver.url, model), "active": False}, expected_version=1)
    assert replaced["version"] == 2 and replaced["active"] is False
    with pytest.raises(ProblemError) as stale:
        client.replace_trigger(created["id"], _trigger(receiver.url, model), expected_version=1)
    assert stale.value.status == 412

    patched = client.patch_trigger(created["id"], {"active": True}, expected_version=2)
    assert patched["version"] == 3 and patched["active"] is True

    client.delete_trigger(created["id"])
    with pytest.raises(ProblemError) as gone:
        client.get_trigger(created["id"])
    assert gone.value.status == 404 and gone.value.problem["status"] == 404


def test_list_pages_with_cursor(client: ActionTriggersClient, receiver) -> None:
    model = f"p{uuid.uuid4().hex[:8]}"
    ids = {client.create_trigger(_trigger(receiver.url, model))["id"] for _ in range(3)}
    first = client.list_triggers(model_name=model, limit=2)
    assert len(first.items) == 2 and first.next_cursor
    second = client.list_triggers(model_name=model, limit=2, cursor=first.next_cursor)
    assert {t["id"] for t in first.items + second.items} == ids and second.next_cursor is None


def test_validation_errors_carry_every_field_path(client: ActionTriggersClient) -> None:
    with pytest.raises(ProblemError) as e:
        client.create_trigger({"config_signals": [{"signal": "post_save"}], "content_types": [{"app_label": "a", "model_name": "b"}],
                               "webhooks": [{"url": "not a url", "http_method": "POST"}, {"url": "http://127.0.0.1/", "http_method": "BREW"}],
                               "active": True})
    err = e.value
    assert err.status == 400 and err.title == "Bad Request" and err.type and err.detail
    paths = {fe.path for fe in err.errors}
    assert {"webhooks[0].url", "webhooks[1].http_method"} <= paths
    assert "webhooks[0].url" in str(err)


def test_emit_single_batch_duplicate_and_status(client: ActionTriggersClient) -> None:
    one = client.emit({"signal": "post_save", "app_label": "crud", "model_name": "nobody", "instance": {"id": 1}})
    uuid.UUID(one["id"])  # the client chose it
    assert one["duplicate"] is False and one["state"] == "unmatched"

    sid = f"py-{uuid.uuid4().hex}"
    signal = {"id": sid, "signal": "post_save", "app_label": "crud", "model_name": "nobody", "instance": {"id": 2}}
    batch = client.emit_many([signal, {**signal, "id": sid + "-b"}])
    assert [a["id"] for a in batch] == [sid, sid + "-b"] and not any(a["duplicate"] for a in batch)
    again = client.emit(signal)
    assert again["duplicate"] is True
    assert client.signal_status(sid)["state"] == "unmatched"

    with pytest.raises(ProblemError) as e:
        client.emit_many([signal, {**signal, "id": sid + "-c", "model_name": "x" * 101}])
    assert [fe.path for fe in e.value.errors] == ["[1].model_name"]


class _Flaky:
    """A real HTTP server that answers 503 (or drops the connection) a few times, then 202."""

    def __init__(self, failures: list[str]) -> None:
        self.failures = list(failures)
        self.bodies: list[Any] = []
        flaky = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                flaky.bodies.append(json.loads(raw))
                what = flaky.failures.pop(0) if flaky.failures else "ok"
                if what == "drop":
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                status = {"ok": 202, "503": 503, "429": 429, "422": 422}[what]
                body = json.dumps({"id": "x", "workflow_id": "signal-x", "duplicate": False, "state": "queued"} if status == 202
                                  else {"title": "nope", "status": status, "detail": what}).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json" if status == 202 else "application/problem+json")
                if status == 429:
                    self.send_header("retry-after", "0")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_emit_retries_with_one_id() -> None:
    flaky = _Flaky(["503", "drop", "429"])
    try:
        c = ActionTriggersClient(flaky.url, retry=RetryPolicy(attempts=4, initial=0.01, maximum=0.05))
        c.emit({"signal": "post_save", "app_label": "a", "model_name": "b", "instance": {}})
        assert len(flaky.bodies) == 4
        assert len({b["id"] for b in flaky.bodies}) == 1  # the id was fixed before the first attempt
    finally:
        flaky.close()


def test_final_refusals_are_not_retried_and_give_up_after_attempts() -> None:
    flaky = _Flaky(["422"])
    try:
        c = ActionTriggersClient(flaky.url, retry=RetryPolicy(attempts=4, initial=0.01, maximum=0.05))
        with pytest.raises(ProblemError) as e:
            c.emit({"signal": "post_save", "app_label": "a", "model_name": "b", "instance": {}})
        assert e.value.status == 422 and e.value.detail == "422" and len(flaky.bodies) == 1
    finally:
        flaky.close()
    closed = ActionTriggersClient(f"http://127.0.0.1:{free_port()}", retry=RetryPolicy(attempts=3, initial=0.01, maximum=0.02))
    with pytest.raises(TransportError):
        closed.signal_status("anything")


class _Hanging:
    """A real TCP server that reads each request and never answers: each webhook attempt to it
    runs into its time-out. Counts the requests (one per attempt), not the connections: after an
    aborted request the HTTP client may open a spare connection that never sends one."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.held: list[socket.socket] = []
        self.requests = 0
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)
            threading.Thread(target=self._read, args=(conn,), daemon=True).start()

    def _read(self, conn: socket.socket) -> None:
        try:
            first = conn.recv(65536)
        except OSError:
            return
        if first:
            with self.lock:
                self.requests += 1

    @property
    def attempts(self) -> int:
        with self.lock:
            return self.requests

    def close(self) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


def test_cancel_deliveries_ends_a_retrying_delivery(client: ActionTriggersClient) -> None:
    hanging = _Hanging()
    try:
        model = f"c{uuid.uuid4().hex[:8]}"
        client.create_trigger({"config_signals": [{"signal": "post_save"}], "content_types": [{"app_label": "crud", "model_name": model}],
                               "webhooks": [{"url": f"{hanging.url}/slow", "http_method": "POST", "timeout_secs": 1}], "active": True})
        sid = f"py-cancel-{uuid.uuid4().hex}"
        client.emit({"id": sid, "signal": "post_save", "app_label": "crud", "model_name": model, "instance": {"id": 1}})
        deadline = time.monotonic() + 20
        while client.signal_status(sid)["actions"][0]["state"] != "retrying":
            assert time.monotonic() < deadline, client.signal_status(sid)
            time.sleep(0.1)

        done = client.cancel_deliveries(sid)
        delivery_id = client.signal_status(sid)["actions"][0]["delivery_id"]
        assert done["cancelled"] == [{"delivery_id": delivery_id, "workflow_id": f"signal-{sid}"}]
        assert done["cancelled_by"] == "anonymous" and done["cancelled_at"]
        while (status := client.signal_status(sid))["state"] != "completed":
            assert time.monotonic() < deadline, status
            time.sleep(0.1)
        assert status["actions"][0]["state"] == "cancelled" and status["actions"][0]["cancelled_at"] == done["cancelled_at"]
        # Never attempted again: past several retry intervals, no new connection.
        seen = hanging.attempts
        time.sleep(3)
        assert hanging.attempts == seen

        with pytest.raises(ProblemError) as again:
            client.cancel_deliveries(sid, [delivery_id])
        assert again.value.status == 409
        assert [(fe.path, fe.message) for fe in again.value.errors] == [("delivery_ids[0]", "was cancelled already")]
    finally:
        hanging.close()


def test_a_webhook_with_its_own_payload(client: ActionTriggersClient, receiver) -> None:
    model = f"o{uuid.uuid4().hex[:8]}"
    trigger = {**_trigger(receiver.url, model), "webhooks": [
        {"url": f"{receiver.url}/own-{model}", "http_method": "POST", "payload": {"own": "{{ instance.id }}"}},
        {"url": f"{receiver.url}/shared-{model}", "http_method": "POST"}]}
    created = client.create_trigger(trigger)
    assert created["webhooks"][0]["payload"] == {"own": "{{ instance.id }}"} and "payload" not in created["webhooks"][1]
    client.emit({"signal": "post_save", "app_label": "crud", "model_name": model, "instance": {"id": 5}})
    [own] = receiver.wait_for(lambda r: r["path"] == f"/own-{model}")
    [shared] = receiver.wait_for(lambda r: r["path"] == f"/shared-{model}")
    assert own["body"] == {"own": 5} and shared["body"] == {"id": 5}
