from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True
    dependencies: list = []

    operations = [
        migrations.CreateModel(
            name="OutboxSignal",
            fields=[
                ("id", models.BigAutoField(primary_key=True, serialize=False)),
                ("signal", models.CharField(max_length=16)),
                ("app_label", models.CharField(max_length=100)),
                ("model_name", models.CharField(max_length=100)),
                ("instance_pk", models.CharField(blank=True, default="", help_text="The instance's primary key as text; rows of one instance are sent in id order.", max_length=255)),
                ("instance", models.JSONField()),
                ("occurred_at", models.DateTimeField()),
                ("state", models.CharField(choices=[("pending", "pending"), ("sent", "sent"), ("failed", "failed (refused by the service)")], default="pending", max_length=8)),
                ("attempts", models.PositiveIntegerField(default=0, help_text="Requests that did not settle the row (service away, 5xx).")),
                ("last_error", models.TextField(blank=True, default="", help_text="Why the service refused the row, or the last transient error.")),
                ("sent_at", models.DateTimeField(blank=True, null=True)),
            ],
            options={
                "verbose_name": "outbox signal",
                "ordering": ["id"],
                "indexes": [
                    models.Index(fields=["state", "id"], name="atc_outbox_state_id"),
                    models.Index(fields=["app_label", "model_name", "instance_pk", "id"], name="atc_outbox_instance"),
                ],
            },
        ),
        migrations.CreateModel(
            name="Emitter",
            fields=[
                ("id", models.PositiveSmallIntegerField(default=1, primary_key=True, serialize=False)),
                ("name", models.CharField(max_length=32)),
            ],
            options={"verbose_name": "emitter identity"},
        ),
    ]
