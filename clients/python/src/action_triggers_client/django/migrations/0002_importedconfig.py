from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("action_triggers_client", "0001_initial")]

    operations = [
        migrations.CreateModel(
            name="ImportedConfig",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("origin_config_id", models.BigIntegerField(help_text="The id of the origin's action_triggers Config.", unique=True)),
                ("trigger_id", models.CharField(blank=True, default="", help_text="Empty while the create is unsettled.", max_length=36)),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
            options={"verbose_name": "imported origin config", "ordering": ["origin_config_id"]},
        ),
    ]
