from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from .models import CutOver, Emitter, OutboxSignal


@admin.register(OutboxSignal)
class OutboxSignalAdmin(admin.ModelAdmin):
    list_display = ("id", "signal", "content_type", "instance_pk", "state", "attempts", "occurred_at", "short_error")
    list_filter = ("state", "signal", "app_label", "model_name")
    search_fields = ("instance_pk", "last_error", "model_name")
    ordering = ("-id",)
    readonly_fields = ("id", "signal", "app_label", "model_name", "instance_pk", "instance", "previous", "occurred_at",
                       "state", "attempts", "last_error", "sent_at")
    actions = ("send_again",)

    @admin.display(description="content type")
    def content_type(self, row: OutboxSignal) -> str:
        return f"{row.app_label}.{row.model_name}"

    @admin.display(description="last error")
    def short_error(self, row: OutboxSignal) -> str:
        return row.last_error if len(row.last_error) <= 120 else row.last_error[:119] + "…"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.action(description="Send the selected failed rows again (after fixing the cause)", permissions=["delete"])
    def send_again(self, request: HttpRequest, queryset: QuerySet[OutboxSignal]) -> None:
        n = queryset.filter(state=OutboxSignal.State.FAILED).update(state=OutboxSignal.State.PENDING, attempts=0)
        self.message_user(request, f"{n} rows are pending again; the relay sends them.", messages.SUCCESS)


@admin.register(Emitter)
class EmitterAdmin(admin.ModelAdmin):
    list_display = ("id", "name")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(CutOver)
class CutOverAdmin(admin.ModelAdmin):
    """Where the move from django-action-triggers stands; changed with ``manage.py action_triggers_cutover``."""

    list_display = ("delivered_by", "changed_at")
    readonly_fields = ("delivered_by", "version", "changed_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
