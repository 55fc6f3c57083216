"""The Django app: ``INSTALLED_APPS += ["action_triggers_client.django"]`` (app label
``action_triggers_client``, so it sits next to django-action-triggers' ``action_triggers``)."""
