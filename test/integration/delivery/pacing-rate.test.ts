import { createMetrics } from '../../../src/observability/metrics';
import { startDispatchHarness, startHarnessForWorkerProcess } from '../../support/dispatch-harness';
import { startReceiver } from '../../support/receiver';
import { killProcess, startWorkerProcess } from '../../support/worker-process';
import { postTrigger, triggerBody } from '../../support/trigger-body';
import { waitForDispatch } from '../../support/signals';
import { until } from '../../support/until';
import { ActionView, ARRIVAL_WINDOW_MS, emitSignals, finalDispatches, JITTER_MS, mostWithin } from '../../support/pacing';

/** A series' value for the destination `webhook:<name>` (`series`: the metric's name, or a histogram's `_count`, `_bucket`); undefined: none. */
const metricOf = async (metrics: ReturnType<typeof createMetrics>, metric: string, series: string, destination: string) => {
  const text = await metrics.registry.getSingleMetricAsString(metric);
  const line = text.split('\n').find((l) => l.startsWith(`${series}{`) && l.includes(`destination="webhook:${destination}"`));
  return line === undefined ? undefined : Number(line.split(' ').pop());
};

const idsOf = (received: ReadonlyArray<{ headers: Record<string, unknown> }>) =>
  new Set(received.map((r) => String(r.headers['webhook-id'])));

test('60 signals to a webhook limited to 10/s (burst 2) arrive at that rate and show `waiting` meanwhile; an unlimited webhook on the same signals is not slowed', async () => {
  const rx = await startReceiver();
  const limit = { name: 'rate-ten', url_prefix: rx.url('/limited/'), max_per_second: 10, burst: 2 };
  const metrics = createMetrics({ defaultMetrics: false });
  const h = await startDispatchHarness({ webhook_limits: [limit] }, { metrics });
  try {
    // timeout_secs 1: the later deliveries wait several seconds for their slot, which must not count against it.
    const limited = await postTrigger(
      h.app,
      triggerBody({ model: 'paced-rate', webhooks: [{ url: rx.url('/limited/orders'), http_method: 'POST', timeout_secs: 1 }] }),
    );
    const free = await postTrigger(
      h.app,
      triggerBody({ model: 'paced-rate', webhooks: [{ url: rx.url('/free/orders'), http_method: 'POST', timeout_secs: 1 }] }),
    );
    const ids = await emitSignals(h.app, 'paced-rate', 60);

    // The last signal's slot is ~5.8 s away: early on, its limited action waits for it.
    const early = await waitForDispatch(
      h.app,
      ids[59]!,
      (s) => (s as { actions?: ActionView[] }).actions?.some((a) => a.trigger_id === limited.id && a.state === 'waiting') === true,
      5000,
    );
    const waiting = (early.actions as ActionView[]).find((a) => a.trigger_id === limited.id)!;
    expect(waiting.waiting_for?.reason).toBe('rate_limited');
    expect(Date.parse(waiting.waiting_for!.until!)).toBeGreaterThan(Date.now());

    await rx.waitFor(() => rx.on('/limited/orders').length >= 60 && rx.on('/free/orders').length >= 60, 30_000);
    const done = await finalDispatches(h.app, ids);
    const limitedAt = rx.on('/limited/orders').map((r) => r.at);
    const freeAt = rx.on('/free/orders').map((r) => r.at);

    expect([rx.on('/limited/orders').length, idsOf(rx.on('/limited/orders')).size]).toEqual([60, 60]);
    expect([rx.on('/free/orders').length, idsOf(rx.on('/free/orders')).size]).toEqual([60, 60]);
    expect(done.flatMap((d) => d.actions.filter((a) => a.state !== 'delivered' || a.attempts !== 1))).toEqual([]);
    expect(
      done.every(
        (d) =>
          d.actions
            .map((a) => a.trigger_id)
            .sort()
            .join() === [limited.id, free.id].sort().join(),
      ),
    ).toBe(true);
    // At sending, 10 a second with the burst of 2 allows 11 in any 1-s window: arrivals late by up
    // to JITTER_MS hold no more in any window of ARRIVAL_WINDOW_MS.
    expect(mostWithin(limitedAt, ARRIVAL_WINDOW_MS)).toBeLessThanOrEqual(11);
    // 58 intervals of 100 ms after the burst of 2, less the slack of a first arrival late at the
    // receiver (sent on time, received up to JITTER_MS later on a loaded machine).
    expect(Math.max(...limitedAt) - Math.min(...limitedAt)).toBeGreaterThanOrEqual(5800 - JITTER_MS);
    // The unlimited webhook is done before the limited one is half way.
    expect(Math.max(...freeAt)).toBeLessThan([...limitedAt].sort((a, b) => a - b)[29]!);

    // Per destination: the attempts sent (the pace), how long each waited (up to ~5.8 s), and no backlog left.
    const P = 'action_triggers_destination_';
    const paced = (m: string, series = m) => metricOf(metrics, `${P}${m}`, `${P}${series}`, 'rate-ten');
    expect(await paced('paced_attempts_total')).toBe(60);
    expect(await paced('wait_seconds', 'wait_seconds_count')).toBeGreaterThanOrEqual(60);
    const waited = (await paced('wait_seconds', 'wait_seconds_sum'))!;
    // Slots 100 ms apart: on average each waited about half the backlog's 5.8 s.
    expect(waited / 60).toBeGreaterThan(1.5);
    expect(await paced('backlog')).toBe(0);
    expect(await metricOf(metrics, `${P}paced_attempts_total`, `${P}paced_attempts_total`, 'free')).toBeUndefined();
  } finally {
    await h.close();
    await rx.close();
  }
}, 60_000);

test('100 signals under 5/s with the worker stopped after ~3 s and started again: each arrives once, and the rate holds across the restart', async () => {
  const rx = await startReceiver();
  const limit = { name: 'rate-five', url_prefix: rx.url('/restart/'), max_per_second: 5 };
  const { h, workerEnv } = await startHarnessForWorkerProcess({ webhook_limits: [limit] });
  let worker = await startWorkerProcess(workerEnv);
  try {
    await postTrigger(
      h.app,
      triggerBody({ model: 'paced-restart', webhooks: [{ url: rx.url('/restart/orders'), http_method: 'POST', timeout_secs: 2 }] }),
    );
    const ids = await emitSignals(h.app, 'paced-restart', 100);
    // Stopped ~3 s into the backlog (of ~20 s), gracefully: the attempts under way end first.
    await until(() => rx.on('/restart/orders').length > 0 && Date.now() - rx.on('/restart/orders')[0]!.at >= 3000, 30_000);
    await killProcess(worker, 'SIGTERM');
    const beforeRestart = rx.on('/restart/orders').length;
    expect(beforeRestart).toBeLessThan(100);
    worker = await startWorkerProcess(workerEnv);
    await rx.waitFor(() => idsOf(rx.on('/restart/orders')).size >= 100, 60_000);
    const done = await finalDispatches(h.app, ids);

    expect(done.flatMap((d) => d.actions.filter((a) => a.state !== 'delivered'))).toEqual([]);
    // Exactly once (no repeat allowed): a graceful stop lets every attempt under way end, so none is sent twice.
    expect([rx.on('/restart/orders').length, idsOf(rx.on('/restart/orders')).size]).toEqual([100, 100]);
    // 5 a second (burst 1) in any 1-s window at sending, the slots that fell while no worker ran included.
    expect(
      mostWithin(
        rx.on('/restart/orders').map((r) => r.at),
        ARRIVAL_WINDOW_MS,
      ),
    ).toBeLessThanOrEqual(5);
  } finally {
    await killProcess(worker, 'SIGTERM');
    await h.close();
    await rx.close();
  }
}, 120_000);
