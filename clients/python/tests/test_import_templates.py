"""The import is honest about templates and bodies: a Django template tag, a filter or unbalanced
braces in an origin payload is refused per field, naming the origin row and what to do instead;
the dry run says how each config's bodies will differ from the origin's and what settings the
app needs."""
from __future__ import annotations

import pytest

pytest.importorskip("action_triggers")  # the origin's app runs on Django < 5.1: the Django 4.2 pass
from action_triggers.models import Config, Webhook
from django.conf import settings
from django.test import override_settings
from test_import import _config, _import, origin  # noqa: F401 - origin is a fixture

from action_triggers_client.django.models import ImportedConfig

ORDER = ("shop", "order")


def _with_webhook(config: Config, receiver) -> Config:
    Webhook.objects.create(config=config, url=f"{receiver.url}/never", http_method="POST")
    return config


@pytest.fixture
def cleanup():
    yield
    ImportedConfig.objects.all().delete()
    Config.objects.all().delete()


def test_template_tags_filters_and_unclosed_braces_are_refused_per_field_with_the_origin_row(receiver, cleanup) -> None:
    tag = _with_webhook(_config(signals=["post_save"], models=[ORDER],
                                payload={"state": "{% if instance.total %}paid{% endif %}", "id": "{{ instance.id }}"}), receiver)
    flt = _with_webhook(_config(signals=["post_save"], models=[ORDER], payload={"when": "{{ instance.placed_at|date:'Y-m-d' }}"}), receiver)
    brace = _with_webhook(_config(signals=["post_save"], models=[ORDER], payload={"text": "order {{ instance.id }"}), receiver)

    for args in ((), ("--dry-run",)):
        out, error = _import(*args)
        assert error is None, out  # named, not failed: the origin keeps delivering them
        assert f"config {tag.pk}: not carried over" in out
        assert (f"payload.state ({{% if instance.total %}}, origin Config {tag.pk}): a Django template tag: the service's "
                "templates substitute values only") in out
        assert f"config {flt.pk}: not carried over" in out
        assert (f"payload.when ({{{{ instance.placed_at|date:'Y-m-d' }}}}, origin Config {flt.pk}): a Django template filter: "
                "the service sends the value itself as JSON (dates and times ISO 8601); write {{ instance.placed_at }}") in out
        assert f"config {brace.pk}: not carried over" in out
        assert f"payload.text ({{{{, origin Config {brace.pk}): unbalanced braces" in out
    assert not ImportedConfig.objects.exists()  # nothing was created for them


def test_the_dry_run_lists_how_bodies_differ_and_the_settings_needed(receiver, cleanup) -> None:
    with_payload = _with_webhook(_config(signals=["post_save"], models=[ORDER], payload={
        "order": "{{ instance.id }}", "placed": "{{ instance.placed_at }}", "who": "{{ instance.customer.name }}",
        "text": "Order {{ instance.id }}"}), receiver)
    without = _with_webhook(_config(signals=["post_save", "post_delete"], models=[("auth", "group")]), receiver)
    with override_settings(ACTION_TRIGGERS_CLIENT={**settings.ACTION_TRIGGERS_CLIENT, "EXPAND": {}}):
        out, _ = _import("--dry-run")
    blocks = {int(b.split(":")[0]): b for b in out.split("config ")[1:]}
    mine = blocks[with_payload.pk]
    assert "needs CONTENT_TYPES to list shop.order for post_save (it does)" in mine
    assert 'a value alone in its string keeps its JSON type (payload.order, payload.placed, payload.who): "{{ instance.id }}" sends 2' in mine
    assert "dates and times are ISO 8601 (2026-11-29T06:00:00+00:00) where the origin used Django's format" in mine
    assert "payload.placed (instance.placed_at)" in mine
    assert "payload.who: instance.customer.name renders null unless EXPAND lists 'customer' for shop.order" in mine
    other = blocks[without.pk]
    assert "needs CONTENT_TYPES to list auth.group for post_save, post_delete; missing now: auth.group (post_save, post_delete)" in other
    assert "no payload: the service sends its envelope {signal, app_label, model_name, instance" in other
    assert "where the origin sent the instance's fields alone" in other


def test_the_origin_shape_option_sends_the_origin_s_no_payload_body_for_the_same_save(receiver, client, cleanup) -> None:
    from action_triggers.payload import payload_from_instance
    from django.contrib.auth.models import Group
    from django.core.management import call_command

    from action_triggers_client.django.after_commit import flush_sender
    from action_triggers_client.django.models import CutOver

    config = _config(signals=["post_save"], models=[("auth", "group")])
    Webhook.objects.create(config=config, url=f"{receiver.url}/origin-shape", http_method="POST")
    out, _ = _import("--dry-run", "--origin-shape")
    assert "no payload, origin shape: the body is the instance's fields as the origin sent them; needs ORIGIN_FIELDS to list auth.group" in out
    out, error = _import("--origin-shape")
    assert error is None, out
    trigger_id = ImportedConfig.objects.get(origin_config_id=config.pk).trigger_id
    assert client.get_trigger(trigger_id)["payload"] == "{{ instance.__fields__ }}"
    listing = {**settings.ACTION_TRIGGERS_CLIENT, "CONTENT_TYPES": [*settings.ACTION_TRIGGERS_CLIENT["CONTENT_TYPES"], "auth.group"],
               "ORIGIN_FIELDS": ["auth.group"]}
    try:
        with override_settings(ACTION_TRIGGERS_CLIENT=listing):
            call_command("action_triggers_cutover", "--to", "service")
            group = Group.objects.create(name="origin-shape")
            assert flush_sender(10)
        [delivered] = receiver.wait_for(lambda r: r["path"] == "/origin-shape")
        assert delivered["body"] == payload_from_instance(group)  # what the origin's own code sends for this save
    finally:
        CutOver.objects.all().delete()
        client.delete_trigger(trigger_id)
