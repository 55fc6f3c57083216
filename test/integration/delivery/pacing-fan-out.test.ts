import { startDispatchHarness } from '../../support/dispatch-harness';
import { startReceiver } from '../../support/receiver';
import { postTrigger, triggerBody } from '../../support/trigger-body';
import { emitSignals, finalDispatches } from '../../support/pacing';

/**
 * A signal whose trigger has 12 webhooks is dispatched in batches of first attempts; the six
 * under a limit of 2/s leave the batch and go at the limit's pace, the six others at once.
 */
test('a fan-out of 12 webhooks, 6 under a limit of 2/s: the 6 others arrive at once, the limited 6 one every 500 ms, all delivered once', async () => {
  const rx = await startReceiver();
  const h = await startDispatchHarness({ webhook_limits: [{ name: 'two-a-second', url_prefix: rx.url('/limited/'), max_per_second: 2 }] });
  try {
    const webhooks = Array.from({ length: 12 }, (_, i) => ({
      url: rx.url(i % 2 === 0 ? `/limited/${i}` : `/free/${i}`),
      http_method: 'POST',
    }));
    await postTrigger(h.app, triggerBody({ model: 'paced-fan-out', webhooks }));
    const [id] = await emitSignals(h.app, 'paced-fan-out', 1);
    await rx.waitFor(() => rx.received.length >= 12, 30_000);
    const [done] = await finalDispatches(h.app, [id!]);

    const at = (prefix: string) =>
      rx.received
        .filter((r) => r.path.startsWith(prefix))
        .map((r) => r.at)
        .sort((a, b) => a - b);
    const limited = at('/limited/');
    const free = at('/free/');
    expect([limited.length, free.length]).toEqual([6, 6]);
    expect(new Set(rx.received.map((r) => r.headers['webhook-id'])).size).toBe(12);
    expect(done!.actions.map((a) => [a.state, a.attempts])).toEqual(Array(12).fill(['delivered', 1]));
    // The free six together, before the limited six are half way.
    expect(free.at(-1)! - free[0]!).toBeLessThan(1000);
    expect(free.at(-1)!).toBeLessThan(limited[3]!);
    // Two a second at sending: five intervals of 500 ms, each less at most the jitter.
    expect(limited.slice(1).filter((t, i) => t - limited[i]! < 500 - 150)).toEqual([]);
    expect(limited.at(-1)! - limited[0]!).toBeGreaterThanOrEqual(2500 - 150);
  } finally {
    await h.close();
    await rx.close();
  }
}, 60_000);
