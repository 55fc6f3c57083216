import { startDispatchHarness } from '../../support/dispatch-harness';
import { postTrigger, triggerBody } from '../../support/trigger-body';
import { waitForDispatch } from '../../support/signals';
import { ActionView, emitSignals, finalDispatches, startCountingReceiver } from '../../support/pacing';
import { until } from '../../support/until';

test('12 signals to a webhook under max_in_flight 2 that answers in 1.5 s: never more than 2 requests under way, all delivered at the first attempt', async () => {
  // 1.5 s each: 9 s for the 12, so they queue for places even when a loaded machine starts them slowly.
  const rx = await startCountingReceiver(1500);
  const h = await startDispatchHarness({ webhook_limits: [{ name: 'two-at-once', url_prefix: rx.url('/slow/'), max_in_flight: 2 }] });
  try {
    // timeout_secs 3: each request takes 1.5 s, the last ones wait ~7.5 s for a place, which must not count against it.
    await postTrigger(
      h.app,
      triggerBody({ model: 'paced-in-flight', webhooks: [{ url: rx.url('/slow/orders'), http_method: 'POST', timeout_secs: 3 }] }),
    );
    const ids = await emitSignals(h.app, 'paced-in-flight', 12);

    // The last signal waits for a place while the first ones are under way.
    const early = await waitForDispatch(h.app, ids[11]!, (s) => (s as { actions?: ActionView[] }).actions?.[0]?.state === 'waiting', 8000);
    const waiting = (early.actions as ActionView[])[0]!;
    // No `until`: a place has no set time.
    expect(waiting.waiting_for).toEqual({ reason: 'rate_limited' });

    await until(() => new Set(rx.state.ids).size >= 12, 30_000);
    const done = await finalDispatches(h.app, ids);

    // At most 2 under way, and the limit used: two at once, not one after another.
    expect(rx.state.most).toBe(2);
    expect([rx.state.ids.length, new Set(rx.state.ids).size]).toEqual([12, 12]);
    expect(done.map((d) => d.actions.map((a) => [a.state, a.attempts]))).toEqual(Array(12).fill([['delivered', 1]]));
  } finally {
    await h.close();
    await rx.close();
  }
}, 60_000);
