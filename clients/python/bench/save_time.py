"""How long a Django save takes with this client installed, without it, and with the origin
(django-action-triggers) calling its webhook inside the save's signal handler.

    python save_time.py              # every variant, alternating, ROUNDS times; prints a table
    python save_time.py --variant X  # one run of one variant (the parent starts these)

Each run is a process of its own on a fresh SQLite file: one Django set-up per variant, as an
application has one. A run saves SAVES orders (each with a foreign key to a customer, its
customer and tags expanded into the signal), each in its own `transaction.atomic()` (the way the
client's rows share the change's transaction), and times each transaction, commit and on_commit
hooks included; the `autocommit` variants save with no transaction around the save. The `update`
variants save one existing order again and again (its status and note changed), so
`outbox+previous` measures what SEND_PREVIOUS adds to an update: the read of the stored row in
pre_save, serialised like the instance (its relations expanded too, unless `no expand`).

The environment names the service (ATC_BASE_URL) and the origin's webhook receiver
(ATC_BENCH_RECEIVER); `npm run bench -- django` starts both (bench/django.ts).
"""
from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent / "tests"
SRC = HERE.parent / "src"

VARIANTS = {
    "without": "client not installed",
    "outbox": "client, rows left for the relay (SEND_ON_COMMIT off)",
    "outbox (no expand)": "client, rows left for the relay, no relation expanded",
    "outbox+send": "client, rows sent on commit to the service",
    "origin": "django-action-triggers, webhook called in the handler",
    "without (autocommit)": "client not installed; no transaction around the save",
    "outbox (autocommit)": "client; its rows then go in a second transaction right after the save's",
    "without (update)": "client not installed; an existing order saved again",
    "outbox (update)": "client, an existing order saved again, no SEND_PREVIOUS",
    "outbox+previous (update)": "client, an existing order saved again, SEND_PREVIOUS (stored row read, relations expanded)",
    "outbox (update; no expand)": "client, an existing order saved again, no relation expanded",
    "outbox+previous (update; no expand)": "client, an existing order saved again, SEND_PREVIOUS, no relation expanded",
}
# What SEND_PREVIOUS adds, each against its baseline measured in the same run.
PREVIOUS_PAIRS = [("outbox (update)", "outbox+previous (update)"),
                  ("outbox (update; no expand)", "outbox+previous (update; no expand)")]


def run_variant(variant: str, saves: int) -> list[float]:
    """In this process: set Django up for `variant`, save `saves` orders, return each save's seconds."""
    db = Path(tempfile.mkdtemp(prefix="atc-bench-")) / "db.sqlite3"
    os.environ.update({"ATC_TEST_DB": str(db), "DJANGO_SETTINGS_MODULE": "testproject.settings",
                       "ATC_SEND_ON_COMMIT": "1" if variant == "outbox+send" else "0"})
    installed = variant.split(" ")[0]
    sys.path[:0] = [str(SRC), str(TESTS)]
    from django.conf import settings

    import testproject.settings as base
    apps = [a for a in base.INSTALLED_APPS if not (
        (a == "action_triggers_client.django" and installed in ("without", "origin"))
        or (a == "action_triggers" and installed != "origin"))]
    config = {k: getattr(base, k) for k in dir(base) if k.isupper()}
    config.update(INSTALLED_APPS=apps, LOGGING={"version": 1})
    if "no expand" in variant:
        config["ACTION_TRIGGERS_CLIENT"] = {**base.ACTION_TRIGGERS_CLIENT, "EXPAND": {}}
    if installed == "outbox+previous":
        config["ACTION_TRIGGERS_CLIENT"] = {**config.get("ACTION_TRIGGERS_CLIENT", base.ACTION_TRIGGERS_CLIENT),
                                            "SEND_PREVIOUS": ["shop.order"]}
    if variant == "origin":
        config["ACTION_TRIGGERS"] = {"whitelisted_content_types": ["shop.order"],
                                     "whitelisted_webhook_endpoint_patterns": [r"^http://127\.0\.0\.1"]}
    settings.configure(**config)
    import django
    from django.core.management import call_command
    from django.db import transaction

    django.setup()
    call_command("migrate", verbosity=0)
    from shop.models import Customer, Order

    if variant == "origin":
        from action_triggers.models import Config, ConfigSignal, Webhook
        from django.contrib.contenttypes.models import ContentType

        origin = Config.objects.create(active=True, payload={"order": "{{ instance.id }}", "total": "{{ instance.total }}"})
        origin.content_types.set([ContentType.objects.get_for_model(Order)])
        ConfigSignal.objects.create(config=origin, signal="post_save")
        Webhook.objects.create(config=origin, url=f"{os.environ['ATC_BENCH_RECEIVER']}/origin", http_method="POST", timeout_secs=5)

    customer = Customer.objects.create(name="Ada", email="ada@example.com")
    timings = []
    around = contextlib.nullcontext if variant.endswith("(autocommit)") else transaction.atomic
    update = "update" in variant
    existing = Order.objects.get(pk=Order.objects.create(customer=customer, note="o", total="9.50").pk)  # caches nothing
    for i in range(saves + 20):
        if update:
            order = existing
            order.status, order.note = ("pending", "paid", "refunded")[i % 3], f"o-{i}"
        else:
            order = Order(customer=customer, note=f"o-{i}", total="9.50")
        start = time.perf_counter()
        with around():
            order.save()
        if i >= 20:  # the first saves warm caches and connections up
            timings.append(time.perf_counter() - start)
    return timings


def main() -> None:
    if "--variant" in sys.argv:
        variant = sys.argv[sys.argv.index("--variant") + 1]
        print(json.dumps(run_variant(variant, int(os.environ.get("SAVES", "300")))))
        return
    rounds = int(os.environ.get("ROUNDS", "3"))
    chosen = [v for v in os.environ.get("VARIANTS", ",".join(VARIANTS)).split(",") if v]
    results: dict[str, list[float]] = {v: [] for v in chosen}
    for _ in range(rounds):
        for variant in chosen:  # alternating: this machine's speed drifts within minutes
            out = subprocess.run([sys.executable, __file__, "--variant", variant], check=True, capture_output=True, text=True)
            results[variant] += json.loads(out.stdout.strip().splitlines()[-1])
    medians = {v: statistics.median(t) for v, t in results.items()}
    print(f"\nDjango {__import__('django').get_version()}, SQLite, {rounds} alternating runs per variant, "
          f"{os.environ.get('SAVES', '300')} saves each; `added` and `ratio` are against `without` (autocommit: "
          "`without (autocommit)`, update: `without (update)`)\n")
    print("| variant | what | saves | median ms | p95 ms | added to a save, median ms | ratio |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for variant, times in results.items():
        ms = sorted(t * 1000 for t in times)
        median, p95 = statistics.median(ms), ms[min(len(ms) - 1, int(0.95 * len(ms)))]
        base = _base_of(variant)
        compared = variant != base and base in medians
        added = f"{median - medians[base] * 1000:.3f}" if compared else ""
        ratio = f"{medians[variant] / medians[base]:.2f}x" if compared else ""
        print(f"| {variant} | {VARIANTS[variant]} | {len(ms)} | {median:.3f} | {p95:.3f} | {added} | {ratio} |")
    pairs = [(b, w) for b, w in PREVIOUS_PAIRS if b in medians and w in medians]
    if pairs:
        print("\nWhat SEND_PREVIOUS adds to an update save (each against its baseline of the same run)\n")
        print("| baseline | median ms | with SEND_PREVIOUS | median ms | added, median ms | ratio |")
        print("|---|---:|---|---:|---:|---:|")
        for base, variant in pairs:
            b, w = medians[base] * 1000, medians[variant] * 1000
            print(f"| {base} | {b:.3f} | {variant} | {w:.3f} | {w - b:.3f} | {w / b:.2f}x |")


def _base_of(variant: str) -> str:
    """What `added` and `ratio` compare a variant with: the save without the client, the same way."""
    if variant.endswith("(autocommit)"):
        return "without (autocommit)"
    return "without (update)" if "update" in variant else "without"


if __name__ == "__main__":
    main()
