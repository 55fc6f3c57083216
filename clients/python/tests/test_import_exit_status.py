"""The import's exit status, as a ``set -e`` deploy script sees it: 0 when nothing failed (a config
not carried over is reported and stays with django-action-triggers), 1 when a config failed."""
from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

pytest.importorskip("action_triggers")  # the origin's app runs on Django < 5.1: the Django 4.2 pass
from action_triggers.models import Config, MessageBrokerQueue, Webhook
from conftest import manage, relay_env
from test_import import GROUP, _config

from action_triggers_client.django.models import ImportedConfig


@pytest.fixture
def cleanup() -> Iterator[None]:
    yield
    ImportedConfig.objects.all().delete()  # nothing here is created in the service
    Config.objects.all().delete()


def _import() -> subprocess.CompletedProcess[str]:
    return subprocess.run(manage("action_triggers_import"), env=relay_env(), capture_output=True, text=True, timeout=120, check=False)


def test_the_import_exits_0_when_a_config_is_only_not_carried_over_and_1_when_one_failed(receiver, cleanup) -> None:
    tagged = _config(signals=["post_save"], models=[GROUP], payload={"state": "{% if instance.name %}named{% endif %}"})
    Webhook.objects.create(config=tagged, url=f"{receiver.url}/never", http_method="POST")

    done = _import()
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"config {tagged.pk}: not carried over" in done.stdout
    assert "`manage.py action_triggers_cutover` names what it still delivers" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "not carried over 1, failed 0"

    refused = _config(signals=["post_save"], models=[GROUP])
    MessageBrokerQueue.objects.create(config=refused, name="no-such-broker")  # the service refuses it

    done = _import()
    assert done.returncode == 1
    assert f"config {refused.pk}: failed" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "not carried over 1, failed 1"
    assert "1 origin config(s) failed; see the lines above" in done.stderr
