"""``python manage.py action_triggers_cutover``: which system delivers the saves that the imported
django-action-triggers configs watch. ``--to service`` after the import, ``--to origin`` to go
back; either takes effect from the next save on, each save delivered by exactly one of the two
(``cutover.py``). Every run says where things stand and names each config the origin still
delivers. ``--check-finished`` changes nothing and exits non-zero while the origin delivers
anything (like ``migrate --check``): when it passes, the origin app can leave INSTALLED_APPS.
"""
from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS

from ... import cutover
from ...models import CutOver, ImportedConfig
from ...origin_deliveries import OriginDelivery, origin_deliveries
from ...origin_import import delivered_by

TO_SERVICE = "`manage.py action_triggers_cutover --to service`"


class Command(BaseCommand):
    help = ("Switches delivery of the imported django-action-triggers configs to the service (--to service) or back "
            "(--to origin); says what django-action-triggers still delivers; --check-finished exits non-zero until "
            "it delivers nothing.")

    def add_arguments(self, parser: Any) -> None:
        action = parser.add_mutually_exclusive_group()
        action.add_argument("--to", choices=[c.value for c in CutOver.DeliveredBy], help="the system that delivers from now on")
        action.add_argument("--check-finished", action="store_true",
                            help="change nothing; exit 1 while django-action-triggers still delivers anything, 0 when its app "
                                 "can be removed from INSTALLED_APPS")
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS, help="the database holding the origin's tables")

    def handle(self, *args: Any, **options: Any) -> None:
        if not cutover.origin_installed():
            if options["check_finished"]:
                self.stdout.write(f"finished: the origin app '{cutover.ORIGIN_APP}' is not in INSTALLED_APPS; "
                                  "this app sends every listed model's signals")
                return
            raise CommandError(f"the origin app '{cutover.ORIGIN_APP}' (django-action-triggers) is not in INSTALLED_APPS: "
                               "nothing to cut over (this app sends every listed model's signals)")
        using = options["database"]
        if options["to"]:
            self._switch(using, options["to"])
        route = delivered_by(using)
        remaining = origin_deliveries(using)
        self._report(using, route, remaining)
        if options["check_finished"]:
            self._check_finished(route, remaining)

    def _switch(self, using: str, to: str) -> None:
        unsettled = ImportedConfig.objects.using(using).filter(trigger_id="").count()
        if to == CutOver.DeliveredBy.SERVICE and unsettled:
            raise CommandError(f"{unsettled} imported config(s) have an unsettled create: run action_triggers_import "
                               "again first, so that each has its trigger")
        route = cutover.route_for()
        missing = cutover.not_listed(route) if route and to == CutOver.DeliveredBy.SERVICE else []
        if missing:
            raise CommandError("ACTION_TRIGGERS_CLIENT['CONTENT_TYPES'] does not send what imported configs watch, so after the "
                               f"cut-over nobody would deliver it: {', '.join(missing)}; list them first")
        cutover.set_delivered_by(using, to)

    def _report(self, using: str, route: str, remaining: list[OriginDelivery]) -> None:
        imported = ImportedConfig.objects.using(using).exclude(trigger_id="").count()
        on_origin = route == CutOver.DeliveredBy.ORIGIN
        self.stdout.write(f"the {imported} imported config(s) are delivered by the {route}"
                          + (" (django-action-triggers); their signals are not sent to the service" if on_origin
                             else "; django-action-triggers delivers only its configs that were not imported"))
        if on_origin:
            self.stdout.write(f"django-action-triggers delivers every active config ({len(remaining)}), imported or not:")
        elif remaining:
            self.stdout.write(f"django-action-triggers still delivers {len(remaining)} active config(s); removing "
                              f"'{cutover.ORIGIN_APP}' from INSTALLED_APPS would drop their deliveries:")
        else:
            self.stdout.write("django-action-triggers delivers nothing: every active config is imported and delivered by the service")
        for delivery in remaining:
            for line in delivery.lines():
                self.stdout.write(line)

    def _check_finished(self, route: str, remaining: list[OriginDelivery]) -> None:
        names = ", ".join(d.name for d in remaining)
        if route == CutOver.DeliveredBy.ORIGIN:
            raise CommandError("not finished: the saves are routed to django-action-triggers, which delivers every active "
                               f"config{f' ({names})' if names else ''}; run {TO_SERVICE} first")
        if remaining:
            raise CommandError(f"not finished: django-action-triggers still delivers {names}; removing '{cutover.ORIGIN_APP}' "
                               "from INSTALLED_APPS now would drop their deliveries (the lines above say why each stays with it)")
        self.stdout.write(f"finished: django-action-triggers delivers nothing; remove '{cutover.ORIGIN_APP}' from "
                          "INSTALLED_APPS (its tables can stay)")
