from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("action_triggers_client", "0004_cutover")]

    operations = [
        # Nullable with no default, so processes of the previous release, which insert rows without
        # it, keep saving during a rolling deploy (their rows send no previous).
        migrations.AddField(
            model_name="outboxsignal", name="previous",
            field=models.JSONField(blank=True, null=True,
                                   help_text="The stored row before the change (post_save of a model in SEND_PREVIOUS); null: none sent."),
        ),
    ]
