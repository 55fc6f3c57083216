"""``python manage.py action_triggers_cutover``: which system delivers the saves that the imported
django-action-triggers configs watch. ``--to service`` after the import, ``--to origin`` to go
back; either takes effect from the next save on, each save delivered by exactly one of the two
(``cutover.py``). Without ``--to`` it says where things stand."""
from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS

from ... import cutover
from ...models import CutOver, ImportedConfig


class Command(BaseCommand):
    help = "Switches delivery of the imported django-action-triggers configs to the service (--to service) or back (--to origin)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--to", choices=[c.value for c in CutOver.DeliveredBy], help="the system that delivers from now on")
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS, help="the database holding the origin's tables")

    def handle(self, *args: Any, **options: Any) -> None:
        if not cutover.origin_installed():
            raise CommandError(f"the origin app '{cutover.ORIGIN_APP}' (django-action-triggers) is not in INSTALLED_APPS: "
                               "nothing to cut over (this app sends every listed model's signals)")
        using = options["database"]
        imported = ImportedConfig.objects.using(using).exclude(trigger_id="").count()
        unsettled = ImportedConfig.objects.using(using).filter(trigger_id="").count()
        if options["to"]:
            if options["to"] == CutOver.DeliveredBy.SERVICE and unsettled:
                raise CommandError(f"{unsettled} imported config(s) have an unsettled create: run action_triggers_import "
                                   "again first, so that each has its trigger")
            route = cutover.route_for()
            missing = cutover.not_listed(route) if route and options["to"] == CutOver.DeliveredBy.SERVICE else []
            if missing:
                raise CommandError("ACTION_TRIGGERS_CLIENT['CONTENT_TYPES'] does not send what imported configs watch, so after the "
                                   f"cut-over nobody would deliver it: {', '.join(missing)}; list them first")
            cutover.set_delivered_by(using, options["to"])
        row = CutOver.objects.using(using).filter(id=1).first()
        delivered_by = row.delivered_by if row else CutOver.DeliveredBy.ORIGIN
        self.stdout.write(f"the {imported} imported config(s) are delivered by the {delivered_by}"
                          + (" (django-action-triggers); their signals are not sent to the service" if delivered_by == "origin"
                             else "; django-action-triggers delivers only its configs that were not imported"))
