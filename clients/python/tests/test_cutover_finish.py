"""Finishing the move from django-action-triggers: the cut-over's status names each active origin
config the origin still delivers (one not carried over among them), and ``--check-finished``
refuses, naming them, until the origin delivers nothing; then its app can leave INSTALLED_APPS."""
from __future__ import annotations

import subprocess
from collections.abc import Iterator
from io import StringIO

import pytest

pytest.importorskip("action_triggers")  # the origin's app runs on Django < 5.1: the Django 4.2 pass
from action_triggers.models import Config, Webhook
from conftest import manage, relay_env
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings
from test_import import GROUP, _config, _delete_if_there

from action_triggers_client.django.models import CutOver, ImportedConfig

IF_TAG = "{% if instance.name %}named{% endif %}"


def _group_config(receiver, payload: dict[str, str]) -> Config:
    config = _config(signals=["post_save"], models=[GROUP], payload=payload)
    Webhook.objects.create(config=config, url=f"{receiver.url}/never", http_method="POST")  # no test saves a group here
    return config


@pytest.fixture
def configs(receiver, client) -> Iterator[tuple[Config, Config]]:
    """Two active origin configs: one the import carries over, one whose payload uses {% if %}."""
    carried = _group_config(receiver, {"name": "{{ instance.name }}"})
    tagged = _group_config(receiver, {"state": IF_TAG})
    listing = {**settings.ACTION_TRIGGERS_CLIENT, "CONTENT_TYPES": [*settings.ACTION_TRIGGERS_CLIENT["CONTENT_TYPES"], "auth.group"]}
    with override_settings(ACTION_TRIGGERS_CLIENT=listing):
        yield carried, tagged
    for trigger_id in ImportedConfig.objects.exclude(trigger_id="").values_list("trigger_id", flat=True):
        _delete_if_there(client, trigger_id)
    ImportedConfig.objects.all().delete()
    Config.objects.all().delete()
    CutOver.objects.all().delete()


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    """``python manage.py …`` as a deploy script runs it: its exit status and what it printed."""
    return subprocess.run(manage(*args), env=relay_env(), capture_output=True, text=True, timeout=120, check=False)


def _cut_over_to(to: str) -> None:
    call_command("action_triggers_cutover", "--to", to, stdout=StringIO())  # here: CONTENT_TYPES lists auth.group


def _names(out: str) -> list[str]:
    """The configs a status names, one line each."""
    return [line.split(":")[0] for line in out.splitlines() if line.startswith("config ")]


@pytest.mark.parametrize("fix", ["deactivate it", "import a fixed version"])
def test_after_the_cut_over_a_config_not_carried_over_is_named_until_it_is_deactivated_or_imported(configs, fix) -> None:
    carried, tagged = configs
    imported = _run("action_triggers_import")
    assert imported.returncode == 0, imported.stdout + imported.stderr
    _cut_over_to("service")

    status = _run("action_triggers_cutover")
    assert status.returncode == 0, status.stderr
    assert "django-action-triggers still delivers 1 active config(s); removing 'action_triggers' from INSTALLED_APPS" in status.stdout
    assert _names(status.stdout) == [f"config {tagged.pk}"]
    assert f"config {tagged.pk}: not carried over" in status.stdout
    assert f"payload.state ({{% if instance.name %}}, origin Config {tagged.pk}): a Django template tag" in status.stdout

    check = _run("action_triggers_cutover", "--check-finished")
    assert check.returncode == 1, check.stdout
    assert f"not finished: django-action-triggers still delivers config {tagged.pk};" in check.stderr

    if fix == "deactivate it":
        tagged.active = False
        tagged.save()
    else:
        tagged.payload = {"state": "{{ instance.name }}"}
        tagged.save()
        imported = _run("action_triggers_import")
        assert imported.returncode == 0 and f"config {tagged.pk} -> trigger " in imported.stdout, imported.stdout

    check = _run("action_triggers_cutover", "--check-finished")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "django-action-triggers delivers nothing" in check.stdout
    assert "finished: django-action-triggers delivers nothing; remove 'action_triggers' from INSTALLED_APPS" in check.stdout
    assert carried.pk in ImportedConfig.objects.exclude(trigger_id="").values_list("origin_config_id", flat=True)


def test_the_finish_check_refuses_while_the_saves_are_routed_to_the_origin(configs) -> None:
    carried, tagged = configs
    tagged.active = False
    tagged.save()
    assert _run("action_triggers_import").returncode == 0

    status = _run("action_triggers_cutover")
    assert "django-action-triggers delivers every active config (1), imported or not:" in status.stdout
    assert _names(status.stdout) == [f"config {carried.pk}"]
    check = _run("action_triggers_cutover", "--check-finished")
    assert check.returncode == 1
    assert (f"not finished: the saves are routed to django-action-triggers, which delivers every active config "
            f"(config {carried.pk}); run `manage.py action_triggers_cutover --to service` first") in check.stderr

    _cut_over_to("service")
    assert _run("action_triggers_cutover", "--check-finished").returncode == 0
    _cut_over_to("origin")  # the way back: not finished again
    assert _run("action_triggers_cutover", "--check-finished").returncode == 1


def test_the_finish_check_refuses_while_an_imported_config_s_create_is_unsettled(configs, receiver) -> None:
    _, tagged = configs
    tagged.active = False
    tagged.save()
    assert _run("action_triggers_import").returncode == 0
    _cut_over_to("service")
    later = _group_config(receiver, {"name": "{{ instance.name }}"})
    ImportedConfig.objects.create(origin_config_id=later.pk)  # its create's answer was lost

    check = _run("action_triggers_cutover", "--check-finished")
    assert check.returncode == 1
    assert f"config {later.pk}: its create is unsettled: run `manage.py action_triggers_import` again" in check.stdout
    assert f"not finished: django-action-triggers still delivers config {later.pk};" in check.stderr

    assert _run("action_triggers_import").returncode == 0  # settles it: no trigger was found, so one is created
    assert _run("action_triggers_cutover", "--check-finished").returncode == 0
