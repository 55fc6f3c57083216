from django.db import migrations, models

import action_triggers_client.django.models


class Migration(migrations.Migration):
    dependencies = [("action_triggers_client", "0002_importedconfig")]

    operations = [
        # Rows already written get no token: they keep the signal id they may have been sent with.
        migrations.AddField(
            model_name="outboxsignal", name="token",
            field=models.CharField(blank=True, default="", editable=False, max_length=16),
        ),
        migrations.AlterField(
            model_name="outboxsignal", name="token",
            field=models.CharField(
                blank=True, default=action_triggers_client.django.models.new_row_token, editable=False, max_length=16,
                help_text="Random, the last part of the row's signal id: a row id reissued after a restore is a new signal."),
        ),
    ]
