from django.apps import AppConfig


class ActionTriggersClientConfig(AppConfig):
    name = "action_triggers_client.django"
    label = "action_triggers_client"
    verbose_name = "Action triggers (outbox)"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import checks, conf, cutover, receivers  # noqa: F401 - checks registers itself

        conf.settings()  # a bad ACTION_TRIGGERS_CLIENT stops the start, naming the key
        receivers.connect()
        cutover.connect()
        if cutover.origin_installed():
            cutover.take_over_origin_receivers()  # this app's receivers run its delivery (cutover.py)
