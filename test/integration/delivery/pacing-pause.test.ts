import request from 'supertest';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { startReceiver } from '../../support/receiver';
import { postTrigger, triggerBody } from '../../support/trigger-body';
import { waitForDispatch } from '../../support/signals';
import { ActionView, ARRIVAL_WINDOW_MS, emitSignals, finalDispatches, mostWithin } from '../../support/pacing';

/**
 * Two attempts, so a pause counted as a failed attempt would fail deliveries; max_interval_secs
 * 10, above the receiver's Retry-After of 5 (a pause is capped at it).
 */
const RETRY = { initial_interval_secs: 0.2, backoff_coefficient: 2, max_interval_secs: 10, max_attempts: 2 };
/** The receiver answers 429 for this long after its first request, then 200. */
const REFUSING_MS = 15_000;
const PAUSE_MS = 5000;
/** Requests that may still arrive after a 429: sent before the worker had the answer. */
const IN_FLIGHT_MS = 100;

test('a receiver that answers 429 with Retry-After: 5 for 15 s pauses its whole destination each time: no request during a pause, then all 40 delivered at the first attempt and the trigger still active', async () => {
  const rx = await startReceiver();
  const refused: Array<{ at: number; id: string }> = [];
  let first: number | undefined;
  rx.respond((r) => {
    first ??= r.at;
    if (r.at - first >= REFUSING_MS) return undefined;
    refused.push({ at: r.at, id: String(r.headers['webhook-id']) });
    return { status: 429, headers: { 'Retry-After': String(PAUSE_MS / 1000) } };
  });
  const h = await startDispatchHarness({
    retry: RETRY,
    // One failed dispatch would deactivate the trigger: a pause must count as no failure.
    breaker: { consecutive_failures: 1, failing_for_hours: 1000 },
    webhook_limits: [{ name: 'twenty', url_prefix: rx.url('/pause/'), max_per_second: 20 }],
  });
  try {
    const trigger = await postTrigger(
      h.app,
      triggerBody({ model: 'paced-pause', webhooks: [{ url: rx.url('/pause/orders'), http_method: 'POST' }] }),
    );
    const ids = await emitSignals(h.app, 'paced-pause', 40);

    // The delivery refused first waits for the pause to end, shown as paused by its receiver.
    await rx.waitFor(() => refused.length > 0, 15_000);
    const [pausing] = refused;
    const early = await waitForDispatch(
      h.app,
      pausing!.id.split('.')[0]!,
      (s) => (s as { actions?: ActionView[] }).actions?.[0]?.state === 'waiting',
      PAUSE_MS / 2,
    );
    const waiting = (early.actions as ActionView[])[0]!;
    expect(waiting.waiting_for?.reason).toBe('paused_by_receiver');
    expect(Date.parse(waiting.waiting_for!.until!)).toBeGreaterThanOrEqual(pausing!.at + PAUSE_MS);

    const answered = () => rx.received.filter((r) => r.at - first! >= REFUSING_MS);
    await rx.waitFor(() => new Set(answered().map((r) => r.headers['webhook-id'])).size >= 40, 60_000);
    const done = await finalDispatches(h.app, ids);
    const times = rx.received.map((r) => r.at);

    // No request from shortly after a 429 until its pause ends.
    const duringPauses = refused.flatMap((p) =>
      times
        .filter((at) => at > p.at + IN_FLIGHT_MS && at < p.at + PAUSE_MS)
        .map((at) => ({ pausedAt: p.at - first!, arrivedAt: at - first! })),
    );
    expect(duringPauses).toEqual([]);
    // 15 s of refusals at 5-s pauses: at least three pauses, separate.
    const pauseStarts = refused.filter((p, i) => i === 0 || p.at - refused[i - 1]!.at > IN_FLIGHT_MS);
    expect(pauseStarts.length).toBeGreaterThanOrEqual(3);
    // Each delivered once, at its first counted attempt, and deliveries resumed as soon as the last pause ended.
    expect([answered().length, new Set(answered().map((r) => r.headers['webhook-id'])).size]).toEqual([40, 40]);
    expect(done.map((d) => d.actions.map((a) => [a.state, a.attempts, a.status_code]))).toEqual(Array(40).fill([['delivered', 1, 200]]));
    const lastRefused = Math.max(...refused.map((p) => p.at));
    expect(Math.min(...answered().map((r) => r.at)) - lastRefused).toBeLessThan(PAUSE_MS + 1000);
    // Retries are paced too: 20 a second (burst 1) in any 1-s window at sending, the ones a 429 answered included.
    expect(mostWithin(times, ARRIVAL_WINDOW_MS)).toBeLessThanOrEqual(20);

    const after = (await request(h.app).get(`/api/action-triggers/${trigger.id}`).expect(200)).body as Record<string, unknown>;
    expect([after.active, after.deactivated_reason]).toEqual([true, undefined]);
  } finally {
    await h.close();
    await rx.close();
  }
}, 120_000);
