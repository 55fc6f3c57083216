"""Two relays at once on a real PostgreSQL: every outbox row is sent once, by one of them, and
the rows of each instance reach the service in the order they were saved.

The test runs the test project in subprocesses against a database of its own (ATC_TEST_PG_PORT
and ATC_TEST_PG_NAME, read by testproject/settings.py), in the session's cluster when the session
runs on PostgreSQL, else in a cluster it starts (pg_cluster.py). Skipped where PostgreSQL's binaries are not installed."""
from __future__ import annotations

import collections
import json
import re
import subprocess
import time
import urllib.parse
import urllib.request
import uuid
from typing import Any, Iterator

import pytest

import pg_cluster
from conftest import SESSION_CLUSTER, manage, relay_env

CUSTOMERS = 25
UPDATES_EACH = 40  # each update writes a pre_save and a post_save row: 25 * 40 * 2 = 2,000 rows
ROWS = CUSTOMERS * UPDATES_EACH * 2


@pytest.fixture(scope="module")
def postgres() -> Iterator[pg_cluster.Cluster]:
    """The session's cluster where the session runs on PostgreSQL (a database of its own in it),
    else one started for this module."""
    if SESSION_CLUSTER is not None:
        SESSION_CLUSTER.createdb("atc_relays")
        yield SESSION_CLUSTER
        return
    try:
        cluster = pg_cluster.start()
    except pg_cluster.Unavailable as why:
        pytest.skip(str(why))
    try:
        cluster.createdb("atc_relays")
        yield cluster
    finally:
        cluster.stop()


def _project_env(pg: pg_cluster.Cluster) -> dict[str, str]:
    # Inline sending off: every row is left to the relays. Batches of 10: many passes, so the
    # two relays interleave.
    return relay_env(ATC_TEST_PG_PORT=str(pg.port), ATC_TEST_PG_NAME="atc_relays", ATC_SEND_ON_COMMIT="0", ATC_BATCH_SIZE="10")


def _run(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)
    assert done.returncode == 0, f"{cmd}: {done.stdout}{done.stderr}"
    return done


def _shell(env: dict[str, str], code: str) -> str:
    return _run(manage("shell", "-c", code), env=env).stdout


WRITE_ROWS = """
from django.db import transaction
from action_triggers_client.django.models import OutboxSignal
from shop.models import Customer
prefix, customers, updates = {prefix!r}, {customers}, {updates}
cs = [Customer.objects.create(name=f"{{prefix}}{{k}}:-1", email=f"{{prefix}}{{k}}@example.org") for k in range(customers)]
# The creates' pre_save rows have no primary key yet (no instance to order by): only updates count.
OutboxSignal.objects.all().delete()
with transaction.atomic():
    for n in range(updates):  # interleaved: customer 0, 1, ..., 39, then 0 again
        for k, c in enumerate(cs):
            c.name = f"{{prefix}}{{k}}:{{n}}"
            c.save()
print(OutboxSignal.objects.filter(state="pending").count())
"""


def _write_rows(env: dict[str, str], prefix: str) -> int:
    return int(_shell(env, WRITE_ROWS.format(prefix=prefix, customers=CUSTOMERS, updates=UPDATES_EACH)).split()[-1])


def _run_two_relays_at_once(env: dict[str, str]) -> list[tuple[int, int]]:
    """Both ``--once``, started together; returns each one's (sent, failed)."""
    procs = [subprocess.Popen(manage("action_triggers_relay", "--once"), env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) for _ in range(2)]
    outcomes = []
    for proc in procs:
        out, _ = proc.communicate(timeout=300)
        assert proc.returncode == 0, out
        m = re.search(r"sent (\d+), failed (\d+)", out)
        assert m, out
        outcomes.append((int(m.group(1)), int(m.group(2))))
    return outcomes


def _accepted_order(service_url: str, wanted: set[str], timeout: float = 120) -> list[str]:
    """The wanted signal ids in the order the service accepted them (GET /api/signals lists its
    store's signals newest first, by store position). Retried while its index catches up."""
    deadline = time.monotonic() + timeout
    while True:
        newest_first: list[str] = []
        cursor = None
        while True:
            query = {"limit": "100", **({"cursor": cursor} if cursor else {})}
            with urllib.request.urlopen(f"{service_url}/api/signals?{urllib.parse.urlencode(query)}", timeout=30) as res:
                page = json.load(res)
            newest_first += [item["id"] for item in page["items"] if item["id"] in wanted]
            cursor = page.get("next_cursor")
            if not cursor or len(newest_first) == len(wanted):
                break
        if len(newest_first) == len(wanted) or time.monotonic() > deadline:
            return list(reversed(newest_first))
        time.sleep(1)


def _signal_id(hook: dict[str, Any]) -> str:
    return hook["headers"]["webhook-id"].split(".")[0]  # "dj-<emitter>-<row id>-<row token>.<action…>"


def _row_id(signal_id: str) -> int:
    return int(signal_id.split("-")[2])


def _customer_and_step(hook: dict[str, Any], prefix: str) -> tuple[int, int]:
    k, n = hook["body"]["instance"]["name"][len(prefix):].split(":")
    return int(k), int(n)


def test_two_relays_on_postgres_send_each_row_once_and_each_instance_in_save_order(postgres, service, triggers, receiver) -> None:
    env = _project_env(postgres)
    _run(manage("migrate", "--verbosity", "0"), env=env)
    prefix = f"pg-{uuid.uuid4().hex[:6]}-"
    assert _write_rows(env, prefix) == ROWS

    outcomes = _run_two_relays_at_once(env)
    # Exactly once by the relays themselves: a row two relays both took is counted by both (the
    # service would merge the two sends into one dispatch, so the receiver alone cannot tell).
    assert all(failed == 0 for _, failed in outcomes), outcomes
    assert sum(sent for sent, _ in outcomes) == ROWS, outcomes
    assert all(sent > 0 for sent, _ in outcomes), f"one relay sent everything, no concurrency shown: {outcomes}"
    assert _shell(env, "from action_triggers_client.django.models import OutboxSignal; print(OutboxSignal.objects.count())").split()[-1] == "0"

    def ours(r: dict[str, Any]) -> bool:
        return r["path"] == "/envelope" and str(r["body"]["instance"].get("name", "")).startswith(prefix)
    receiver.wait_for(ours, count=ROWS, timeout=180, key=lambda r: r["headers"]["webhook-id"])
    time.sleep(1)  # anything dispatched under a second id would show up by now
    hooks = receiver.matching(ours)
    # One webhook-id per row. The same id twice is the service's own retry of an attempt whose
    # answer it did not get in time (at least once, as documented), which a busy machine's
    # receiver causes: it answered after the 10 s timeout.
    webhook_ids = collections.Counter(h["headers"]["webhook-id"] for h in hooks)
    assert len(webhook_ids) == ROWS, (len(hooks), len(webhook_ids))

    # Save order is id order (one writer); per customer: (step, pre_save before post_save).
    by_signal = {_signal_id(h): h for h in hooks}
    saves: dict[int, list[tuple[int, int, str]]] = collections.defaultdict(list)
    for sid, h in by_signal.items():
        k, n = _customer_and_step(h, prefix)
        saves[k].append((_row_id(sid), n, h["body"]["signal"]))
    for k, rows in saves.items():
        assert [(n, s) for _, n, s in sorted(rows)] == [(n, s) for n in range(UPDATES_EACH) for s in ("pre_save", "post_save")], k

    # Per customer, the service accepted the rows in save (id) order.
    accepted = _accepted_order(service.url, set(by_signal))
    assert len(accepted) == ROWS
    accepted_ids: dict[int, list[int]] = collections.defaultdict(list)
    for sid in accepted:
        accepted_ids[_customer_and_step(by_signal[sid], prefix)[0]].append(_row_id(sid))
    out_of_order = {k: ids for k, ids in accepted_ids.items() if ids != sorted(ids)}
    assert not out_of_order, f"customers whose rows the service accepted out of save order: {sorted(out_of_order)}"
