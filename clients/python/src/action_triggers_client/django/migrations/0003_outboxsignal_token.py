from django.db import migrations, models

import action_triggers_client.django.models


class Migration(migrations.Migration):
    dependencies = [("action_triggers_client", "0002_importedconfig")]

    operations = [
        # Nullable, so that processes of the previous release, which insert rows without it, keep
        # saving during a rolling deploy; rows without a token keep the id they may have been sent with.
        migrations.AddField(
            model_name="outboxsignal", name="token",
            field=models.CharField(blank=True, editable=False, max_length=16, null=True),
        ),
        migrations.AlterField(
            model_name="outboxsignal", name="token",
            field=models.CharField(
                blank=True, default=action_triggers_client.django.models.new_row_token, editable=False, max_length=16, null=True,
                help_text="Random, the last part of the row's signal id: a row id reissued after a restore is a new signal."),
        ),
    ]
