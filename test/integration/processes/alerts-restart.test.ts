import { rmSync } from 'node:fs';
import { TEST_RETRY } from '../../support/dispatch-harness';
import { startReceiver } from '../../support/receiver';
import { startServerProcess, stopServerProcess, ServerProcess } from '../../support/server-process';
import { serviceEnvIn } from '../../support/servers';
import { tempDir } from '../../support/test-app';
import { triggerBody } from '../../support/trigger-body';
import { alertsAtSink, newSecret } from '../../support/alerts';

/**
 * A sink away for 60 s (it answers 503), and the whole service (the compiled one, on a data
 * folder of its own) stopped with SIGTERM and started again in between: every alert raised
 * meanwhile reaches the sink once it is back, each exactly once.
 */
const SINK_DOWN_MS = 60_000;
const THRESHOLD = 4;
const SECRET = newSecret();

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

const finished = async (service: ServerProcess, id: string) => {
  for (const end = Date.now() + 30_000; Date.now() < end;) {
    const res = await fetch(`${service.url}/api/signals/${id}`);
    if (res.status === 200 && ['completed', 'failed'].includes(((await res.json()) as { state: string }).state)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`signal ${id} not done`);
};

test('alerts raised while their sink is down for 60 s, the service restarted in between, all reach the sink once it is back, each once', async () => {
  const target = await startReceiver();
  const sink = await startReceiver();
  const dir = tempDir('at-alerts-restart-');
  let service: ServerProcess | undefined;
  const downUntil = Date.now() + SINK_DOWN_MS;
  sink.respond(() => (Date.now() < downUntil ? { status: 503 } : undefined));
  target.respond(() => ({ status: 500 }));
  try {
    const env = serviceEnvIn(
      dir,
      {
        allow_private_targets: true,
        retry: { ...TEST_RETRY, max_attempts: 1 },
        breaker: { consecutive_failures: THRESHOLD, failing_for_hours: 1000 },
        alerts: { sinks: [{ name: 'ops', type: 'webhook', url: sink.url('/alerts'), secret: SECRET, max_per_minute: 600 }] },
      },
      'alerts-restart',
    );
    service = await startServerProcess(env, 60_000);
    const created = await post(
      `${service.url}/api/action-triggers`,
      triggerBody({ model: 'alerted', webhooks: [{ url: target.url('/o'), http_method: 'POST' }] }),
    );
    expect(created.status).toBe(201);
    // Four failed dispatches: exhausted, failing at 50 % (the 2nd), then the breaker trips (the 4th).
    for (let i = 0; i < THRESHOLD; i++) {
      const accepted = (await (
        await post(`${service.url}/api/signals`, { signal: 'post_save', app_label: 'shop', model_name: 'alerted', instance: { id: i } })
      ).json()) as { id: string };
      await finished(service, accepted.id);
    }
    await sink.waitFor(() => sink.count('/alerts') > 0, 10_000);
    expect(await stopServerProcess(service, 'SIGTERM')).toBe(0);
    service = await startServerProcess(env, 60_000);

    const verified = () => alertsAtSink(sink.on('/alerts'), SECRET, downUntil);
    await sink.waitFor(() => verified().length >= 3, SINK_DOWN_MS + 60_000);
    await new Promise((r) => setTimeout(r, 2000));
    const types = verified().map((a) => a.type);
    expect(types.sort()).toEqual(['action.exhausted', 'action.failing', 'trigger.deactivated']);
    expect(new Set(verified().map((a) => a.id)).size).toBe(3);
    // While it was down the sink was tried again, on the retries' schedule, by both runs.
    expect(sink.on('/alerts').filter((r) => r.at < downUntil).length).toBeGreaterThanOrEqual(2);
    expect(await stopServerProcess(service, 'SIGTERM')).toBe(0);
    service = undefined;
  } finally {
    if (service) await stopServerProcess(service, 'SIGKILL');
    await target.close();
    await sink.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 240_000);
