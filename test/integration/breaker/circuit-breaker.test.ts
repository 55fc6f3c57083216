import { rmSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { createLogger } from '../../../src/kernel/logger';
import { breakerStreamOf, loadBreaker } from '../../../src/model/breaker/stream';
import { openSqliteStore } from '../../../src/event-store/sqlite';
import { createBreaker } from '../../../src/model/breaker/record-outcome';
import { createDefinitionAt } from '../../../src/model/triggers/definition-at';
import type { Attempt } from '../../../src/dispatch/types';
import { startDispatchHarness, TEST_RETRY } from '../../support/dispatch-harness';
import { startReceiver, Receiver } from '../../support/receiver';
import { waitForDispatch } from '../../support/signals';
import { postTrigger, triggerBody } from '../../support/trigger-body';
import { tempDir } from '../../support/test-app';
import { saveAlerting, takeAlerting } from '../../../src/model/alerts/alerting-lease';

/** Two attempts per dispatch (0.2 s apart): a failed dispatch takes well under a second. */
const RETRY = { ...TEST_RETRY, max_attempts: 2 };

type Harness = Awaited<ReturnType<typeof startDispatchHarness>>;
let h: Harness;
let rx: Receiver;
const logLines: string[] = [];

beforeAll(async () => {
  rx = await startReceiver();
  h = await startDispatchHarness(
    { retry: RETRY, breaker: { consecutive_failures: 3, failing_for_hours: 1000 } },
    { log: createLogger('info', (line) => logLines.push(line)) },
  );
});
afterAll(async () => {
  await h?.close();
  await rx?.close();
});

/** A trigger of its own content type, with one webhook to `path` on the receiver. */
const createTrigger = (app: Harness['app'], model: string, path: string) =>
  postTrigger(app, triggerBody({ model, webhooks: [{ url: `${rx.url(path)}?token=s3cret`, http_method: 'POST' }] }));

/** Emits one signal for `model` and waits until its dispatch is over (every attempt, and the breaker, done). */
const dispatchOnce = async (app: Harness['app'], model: string) => {
  const accepted = (
    await request(app)
      .post('/api/signals')
      .send({ signal: 'post_save', app_label: 'shop', model_name: model, instance: { id: 1 } })
      .expect(202)
  ).body as { id: string; state: string };
  return waitForDispatch(app, accepted.id) as Promise<{ state: string; actions: Array<{ state: string }> }>;
};

/** The trigger resource, once the read model shows `until`. */
const triggerWhen = async (app: Harness['app'], id: string, until: (t: Record<string, unknown>) => boolean) => {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await request(app).get(`/api/action-triggers/${id}`).expect(200);
    if (until(res.body)) return res.body as Record<string, unknown>;
    if (Date.now() > deadline) throw new Error(`trigger ${id}: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

const failures = async (harness: Harness, id: string) => (await loadBreaker(harness.store, id)).state.runs.w0?.failures ?? 0;

test('3 consecutive failed dispatches deactivate the trigger: event with reason and actor in history, deactivated_reason, log line; a PATCH reactivates it and resets the count', async () => {
  const trigger = await createTrigger(h.app, 'breaker-n', '/n');
  rx.script('/n?token=s3cret', Array(6).fill({ status: 500 }));
  for (let i = 0; i < 3; i++) expect((await dispatchOnce(h.app, 'breaker-n')).actions.map((a) => a.state)).toEqual(['failed']);
  expect(rx.on('/n?token=s3cret')).toHaveLength(6);

  const off = await triggerWhen(h.app, trigger.id, (t) => t.active === false);
  const reason = `webhook 0 (${rx.url('/n')}) failed every attempt of 3 consecutive dispatches (last error: HTTP 500)`;
  expect(off.deactivated_reason).toBe(reason);
  expect(off.version).toBe(2);
  const listed = (await request(h.app).get('/api/action-triggers').query({ model_name: 'breaker-n' }).expect(200)).body as Array<
    Record<string, unknown>
  >;
  expect(listed.map((t) => t.deactivated_reason)).toEqual([reason]);
  const history = (await request(h.app).get(`/api/action-triggers/${trigger.id}/history`).expect(200)).body as Array<{
    type: string;
    data: { reason?: string };
    metadata: { actor: string };
  }>;
  expect(history.map((e) => e.type)).toEqual(['TriggerCreated', 'TriggerDeactivated']);
  expect(history[1]!.data.reason).toBe(reason);
  expect(history[1]!.metadata.actor).toBe('system:circuit-breaker');
  expect(JSON.stringify(history[1])).not.toContain('s3cret');
  const logged = logLines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === 'trigger deactivated by circuit breaker');
  expect(logged).toEqual([
    expect.objectContaining({ level: 'warn', trigger_id: trigger.id, action: `webhook 0 (${rx.url('/n')})`, reason }),
  ]);
  expect(logLines.filter((l) => l.includes('circuit breaker')).join('\n')).not.toContain('s3cret');

  // The resource sent back as it was read: deactivated_reason is a server field, ignored; nothing changes.
  const same = (await request(h.app).put(`/api/action-triggers/${trigger.id}`).send(off).expect(200)).body as Record<string, unknown>;
  expect([same.version, same.deactivated_reason]).toEqual([2, reason]);

  // Inactive: a 4th signal matches nothing.
  expect((await dispatchOnce(h.app, 'breaker-n')).state).toBe('unmatched');
  expect(rx.on('/n?token=s3cret')).toHaveLength(6);

  // Reactivated by an ordinary PATCH: reason gone, count started again (2 more failures do not trip it).
  const on = (await request(h.app).patch(`/api/action-triggers/${trigger.id}`).send({ active: true }).expect(200)).body as Record<
    string,
    unknown
  >;
  expect(on.active).toBe(true);
  expect(on).not.toHaveProperty('deactivated_reason');
  rx.script('/n?token=s3cret', Array(4).fill({ status: 500 }));
  await triggerWhen(h.app, trigger.id, (t) => t.version === 3);
  for (let i = 0; i < 2; i++) expect((await dispatchOnce(h.app, 'breaker-n')).actions.map((a) => a.state)).toEqual(['failed']);
  expect(await failures(h, trigger.id)).toBe(2);
  const still = await triggerWhen(h.app, trigger.id, () => true);
  expect([still.active, still.version, still.deactivated_reason]).toEqual([true, 3, undefined]);
});

test('a delivery between failures resets the count; a healthy trigger leaves no breaker events', async () => {
  const trigger = await createTrigger(h.app, 'breaker-reset', '/reset');
  expect((await dispatchOnce(h.app, 'breaker-reset')).actions.map((a) => a.state)).toEqual(['delivered']);
  expect(await h.store.read(breakerStreamOf(trigger.id))).toEqual([]);

  // fail, fail, deliver, fail, fail: never 3 in a row.
  rx.script('/reset?token=s3cret', [
    { status: 500 },
    { status: 500 },
    { status: 500 },
    { status: 500 },
    { status: 200 },
    { status: 500 },
    { status: 500 },
    { status: 500 },
    { status: 500 },
  ]);
  const states: string[] = [];
  for (let i = 0; i < 5; i++) states.push(...(await dispatchOnce(h.app, 'breaker-reset')).actions.map((a) => a.state));
  expect(states).toEqual(['failed', 'failed', 'delivered', 'failed', 'failed']);
  expect(await failures(h, trigger.id)).toBe(2);
  // The delivery ended the old run: what followed it is kept, and before it only failures the
  // alerts had not read yet when it was cut (they raise alerts from them).
  const kept = (await h.store.read(breakerStreamOf(trigger.id))).map((e) => e.type);
  expect(kept.slice(-3)).toEqual(['ActionRecovered', 'ActionFailed', 'ActionFailed']);
  expect(kept.slice(0, -3).filter((t) => t !== 'ActionFailed')).toEqual([]);
  expect(kept.length).toBeLessThanOrEqual(5);
  expect((await triggerWhen(h.app, trigger.id, () => true)).active).toBe(true);

  // The third in a row trips it.
  rx.script('/reset?token=s3cret', [{ status: 500 }, { status: 500 }]);
  await dispatchOnce(h.app, 'breaker-reset');
  expect((await triggerWhen(h.app, trigger.id, (t) => t.active === false)).deactivated_reason).toContain('3 consecutive dispatches');
});

test('a 410 Gone is not retried and deactivates the trigger at once', async () => {
  const trigger = await createTrigger(h.app, 'breaker-gone', '/gone');
  rx.script('/gone?token=s3cret', [{ status: 410 }]);
  expect((await dispatchOnce(h.app, 'breaker-gone')).actions.map((a) => a.state)).toEqual(['failed']);
  expect(rx.on('/gone?token=s3cret')).toHaveLength(1);
  const off = await triggerWhen(h.app, trigger.id, (t) => t.active === false);
  expect(off.deactivated_reason).toBe(`webhook 0 (${rx.url('/gone')}) answered 410 Gone`);
  const history = (await request(h.app).get(`/api/action-triggers/${trigger.id}/history`).expect(200)).body as Array<{
    type: string;
    metadata: { actor: string };
  }>;
  expect(history.map((e) => [e.type, e.metadata.actor])).toEqual([
    ['TriggerCreated', expect.any(String)],
    ['TriggerDeactivated', 'system:circuit-breaker'],
  ]);
});

test('an action failing for longer than failing_for_hours deactivates the trigger, however few its failures', async () => {
  // 0.0003 h is about 1.1 s.
  const other = await startDispatchHarness({ retry: RETRY, breaker: { consecutive_failures: 100, failing_for_hours: 0.0003 } });
  try {
    const trigger = await createTrigger(other.app, 'breaker-time', '/time');
    rx.script('/time?token=s3cret', Array(4).fill({ status: 503 }));
    await dispatchOnce(other.app, 'breaker-time');
    expect(await failures(other, trigger.id)).toBe(1);
    await new Promise((r) => setTimeout(r, 1200));
    await dispatchOnce(other.app, 'breaker-time');
    const off = await triggerWhen(other.app, trigger.id, (t) => t.active === false);
    expect(off.deactivated_reason).toMatch(
      new RegExp(
        `^webhook 0 \\(${rx.url('/time').replace(/\./g, '\\.')}\\) has failed every dispatch for more than 0\\.0003 h, since \\S+ \\(2 dispatches; last error: HTTP 503\\)$`,
      ),
    );
  } finally {
    await other.close();
  }
});

test('many dispatches of one trigger failing at once: every failure counted, one deactivation, no breaker error', async () => {
  const trigger = await createTrigger(h.app, 'breaker-burst', '/burst');
  rx.script('/burst?token=s3cret', Array(16).fill({ status: 500 }));
  const states = await Promise.all(Array.from({ length: 8 }, () => dispatchOnce(h.app, 'breaker-burst')));
  expect(states.flatMap((s) => s.actions.map((a) => a.state))).toEqual(Array(8).fill('failed'));
  expect(await failures(h, trigger.id)).toBe(8);
  await triggerWhen(h.app, trigger.id, (t) => t.active === false);
  const history = (await request(h.app).get(`/api/action-triggers/${trigger.id}/history`).expect(200)).body as Array<{ type: string }>;
  expect(history.map((e) => e.type)).toEqual(['TriggerCreated', 'TriggerDeactivated']);
  expect(logLines.filter((l) => l.includes('outcome not recorded') || l.includes('still recording'))).toEqual([]);
});

test('155 final failures of one trigger recorded at once by two writers on one store: every one counted, the trigger deactivated', async () => {
  const trigger = await createTrigger(h.app, 'breaker-155', '/155');
  // A second connection to the same SQLite file: another worker process's writer.
  const other = openSqliteStore(join(h.dir, 'events.sqlite'));
  try {
    const recorders = [h.store, other].map((store) =>
      createBreaker({
        store,
        definitionAt: createDefinitionAt(store),
        settings: { consecutiveFailures: 150, failingForMs: 3_600_000 },
        log: createLogger('info', (line) => logLines.push(line)),
      }),
    );
    const failed: Attempt = { outcome: 'retry', errorType: 'WebhookStatus', reason: 'HTTP 500', statusCode: 500 };
    await Promise.all(
      Array.from({ length: 155 }, (_, i) =>
        recorders[i % 2]!(
          {
            deliveryId: `burst-${i}.${trigger.id}.w0`,
            triggerId: trigger.id,
            version: trigger.version,
            kind: 'webhook',
            index: 0,
            timeoutSecs: 5,
          },
          failed,
          true,
        ),
      ),
    );
    // The hook waits 3 s at most; what it did not wait for goes on in the background, and must land too.
    const deadline = Date.now() + 20_000;
    while ((await failures(h, trigger.id)) < 155 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await failures(h, trigger.id)).toBe(155);
    expect(await h.store.read(breakerStreamOf(trigger.id))).toHaveLength(155);
    expect((await triggerWhen(h.app, trigger.id, (t) => t.active === false)).deactivated_reason).toContain('150 consecutive dispatches');
    const history = (await request(h.app).get(`/api/action-triggers/${trigger.id}/history`).expect(200)).body as Array<{ type: string }>;
    expect(history.map((e) => e.type)).toEqual(['TriggerCreated', 'TriggerDeactivated']);
    expect(logLines.filter((l) => l.includes('outcome not recorded'))).toEqual([]);
  } finally {
    await other.close();
  }
});

test('a delivery after failures cuts the breaker stream only up to what the alerts have read: the failures they have not read yet stay', async () => {
  const dir = tempDir('at-breaker-cut-');
  const store = openSqliteStore(join(dir, 'events.sqlite'));
  try {
    const record = createBreaker({
      store,
      definitionAt: async () => undefined,
      settings: { consecutiveFailures: 100, failingForMs: 3_600_000 },
      log: createLogger('info', () => undefined),
    });
    const plan = { deliveryId: 's.t.w0', triggerId: 't-cut', version: 1, kind: 'webhook' as const, index: 0, timeoutSecs: 5 };
    const failed: Attempt = { outcome: 'retry', errorType: 'WebhookStatus', reason: 'HTTP 500', statusCode: 500 };
    await record(plan, failed, true);
    const [first] = await store.read(breakerStreamOf('t-cut'));
    // The alerts have read the first failure only.
    const held = await takeAlerting<{ breakers: string }>(store, 'test', 60_000);
    await saveAlerting(store, held!, { breakers: first!.position.toString() }, 60_000);
    await record(plan, failed, true);
    await record(plan, { outcome: 'delivered', statusCode: 200 }, true);
    expect((await store.read(breakerStreamOf('t-cut'))).map((e) => e.type)).toEqual(['ActionFailed', 'ActionRecovered']);
    // Once they have read it all, the next cut drops everything before the run's end.
    await record(plan, failed, true);
    const [last] = await store.read(breakerStreamOf('t-cut'), { direction: 'backwards', maxCount: 1 });
    await saveAlerting(
      store,
      (await takeAlerting<{ breakers: string }>(store, 'test', 60_000))!,
      { breakers: last!.position.toString() },
      60_000,
    );
    await record(plan, { outcome: 'delivered', statusCode: 200 }, true);
    expect((await store.read(breakerStreamOf('t-cut'))).map((e) => e.type)).toEqual(['ActionRecovered']);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
