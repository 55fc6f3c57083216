"""``python manage.py action_triggers_import``: creates in the service the triggers of
django-action-triggers' configs (the ``action_triggers`` app installed in this project).

One line per config, then a summary. ``--dry-run`` prints the plan (header values, connection details and URL credentials masked)
and creates nothing. Exits 1 when any config failed (the others are imported anyway), so a deploy
script can run it until it passes; a config not carried over is named but is no failure: it stays
with django-action-triggers, and ``action_triggers_cutover`` names it among what the origin delivers.
"""
from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

from django.apps import apps
from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS

from ....client import ActionTriggersClient, RetryPolicy
from ... import conf
from ...dry_run import masked_body
from ...origin_import import ConfigResult, Outcome, import_configs

ORIGIN_APP = "action_triggers"
# Counted in the summary even at 0: what a run left undone.
ALWAYS_COUNTED = (Outcome.FAILED, Outcome.NOT_CARRIED)


class Command(BaseCommand):
    help = "Imports django-action-triggers' configs (app 'action_triggers') as triggers of the service; idempotent."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--dry-run", action="store_true", help="print what would be created; create nothing")
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS, help="the database holding the origin's tables")
        parser.add_argument("--inactive", action="store_true", help="create every trigger inactive, whatever the origin's config says")
        parser.add_argument("--origin-shape", action="store_true",
                            help="a config without payload sends what the origin sent (the instance's fields; needs ORIGIN_FIELDS), "
                                 "not the service's envelope")
        parser.add_argument("--base-url", help="the service's URL (default: ACTION_TRIGGERS_CLIENT['BASE_URL'])")
        parser.add_argument("--api-key", default=os.environ.get("ACTION_TRIGGERS_IMPORT_API_KEY"),
                            help="a key with scope triggers:write; better in the environment variable ACTION_TRIGGERS_IMPORT_API_KEY "
                                 "(kept out of the process list and shell history). Default: ACTION_TRIGGERS_CLIENT['API_KEY'], "
                                 "usually a signals:write key that may not create triggers")

    def handle(self, *args: Any, **options: Any) -> None:
        if not apps.is_installed(ORIGIN_APP):
            raise CommandError(f"the origin app '{ORIGIN_APP}' (django-action-triggers) is not in INSTALLED_APPS")
        settings = conf.settings()
        client = ActionTriggersClient(options["base_url"] or settings.base_url, options["api_key"] or settings.api_key,
                                      timeout=settings.timeout, retry=RetryPolicy(attempts=3))
        dry_run: bool = options["dry_run"]
        counts: Counter[Outcome] = Counter()
        for result in import_configs(client, options["database"], dry_run=dry_run, inactive=options["inactive"],
                                     origin_shape=options["origin_shape"]):
            counts[result.outcome] += 1
            self._report(result)
        if counts[Outcome.NOT_CARRIED]:
            self.stdout.write("what is not carried over stays with django-action-triggers while it is installed: "
                              "`manage.py action_triggers_cutover` names what it still delivers")
        summary = ", ".join(f"{outcome.value} {counts[outcome]}" for outcome in Outcome if counts[outcome] or outcome in ALWAYS_COUNTED)
        self.stdout.write(("dry run: " if dry_run else "") + (summary or "no origin configs"))
        if counts[Outcome.FAILED]:
            raise CommandError(f"{counts[Outcome.FAILED]} origin config(s) failed; see the lines above")

    def _report(self, r: ConfigResult) -> None:
        head = f"config {r.config_id}" + (f" -> trigger {r.trigger_id}" if r.trigger_id else "") + f": {r.outcome.value}"
        if r.outcome is Outcome.WOULD_CREATE:
            head += " " + json.dumps(masked_body(r.body), sort_keys=True)
        self.stdout.write(head)
        for line in r.problems:
            self.stdout.write(f"  {line}")
