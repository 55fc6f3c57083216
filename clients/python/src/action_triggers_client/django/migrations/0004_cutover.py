from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("action_triggers_client", "0003_outboxsignal_token")]

    operations = [
        migrations.CreateModel(
            name="CutOver",
            fields=[
                ("id", models.PositiveSmallIntegerField(default=1, primary_key=True, serialize=False)),
                ("delivered_by", models.CharField(
                    choices=[("origin", "django-action-triggers (the origin)"), ("service", "the action-triggers service")],
                    default="origin", max_length=8)),
                ("version", models.PositiveIntegerField(default=0, help_text="Counts changes of this row and of the imported configs.")),
                ("changed_at", models.DateTimeField(auto_now=True)),
            ],
            options={"verbose_name": "cut-over from django-action-triggers",
                     "verbose_name_plural": "cut-over from django-action-triggers"},
        ),
        migrations.AlterModelOptions(
            name="emitter",
            options={"verbose_name": "emitter identity", "verbose_name_plural": "emitter identities"},
        ),
    ]
