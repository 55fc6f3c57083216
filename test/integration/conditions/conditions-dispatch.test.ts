import request from 'supertest';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { startReceiver, Receiver } from '../../support/receiver';
import { waitForDispatch } from '../../support/signals';
import { postTrigger, triggerBody } from '../../support/trigger-body';

let h: Awaited<ReturnType<typeof startDispatchHarness>>;
let rx: Receiver;
// Signal ids are kept for as long as signals are retained: a run of its own never meets an earlier run's.
const run = `${process.pid}-${Date.now()}`;

beforeAll(async () => {
  rx = await startReceiver();
  h = await startDispatchHarness({});
});
afterAll(async () => {
  await h?.close();
  await rx?.close();
});

const createTrigger = (path: string, condition: unknown, ordering = 'none') =>
  postTrigger(h.app, triggerBody({ model: path.slice(1), condition, ordering, webhooks: [{ url: rx.url(path), http_method: 'POST' }] }));

/** The workflows the Temporal server holds on this run's task queue (visibility is eventually consistent). */
const workflowsOnTaskQueue = async () => {
  const ids: string[] = [];
  for await (const w of h.client.workflow.list({ query: `TaskQueue = '${h.taskQueue}'` })) ids.push(w.workflowId);
  return ids.sort();
};

const signalsOf = (model: string, count: number, instance: (i: number) => Record<string, unknown>) =>
  Array.from({ length: count }, (_, i) => ({
    id: `${run}-${model}-${i}`,
    signal: 'post_save',
    app_label: 'shop',
    model_name: model,
    instance: instance(i),
  }));

test('of 1,000 signals, the 100 whose instance meets the condition are delivered, and only they start a workflow on the Temporal server', async () => {
  const trigger = await createTrigger('/bulk', { 'instance.bucket': 0, 'instance.total': { $gte: 0 } });
  const signals = signalsOf('bulk', 1000, (i) => ({ id: i, bucket: i % 10, total: i }));
  const accepted: { id: string; workflow_id: string; state: string }[] = [];
  for (const batch of [signals.slice(0, 500), signals.slice(500)])
    accepted.push(...(await request(h.app).post('/api/signals').send(batch).expect(202)).body);
  const expected = signals.filter((_, i) => i % 10 === 0).map((s) => s.id);
  expect(accepted.filter((a) => a.state === 'queued').map((a) => a.id)).toEqual(expected);

  await rx.waitFor(() => rx.count('/bulk') >= 100, 120_000);
  for (const id of expected) await waitForDispatch(h.app, id, (s) => s.state === 'completed', 60_000);
  const delivered = rx.on('/bulk').map((r) => JSON.parse(r.body).signal_id as string);
  expect(delivered.sort()).toEqual([...expected].sort());

  const expectedWorkflows = accepted
    .filter((a) => a.state === 'queued')
    .map((a) => a.workflow_id)
    .sort();
  let onServer: string[] = [];
  for (let i = 0; i < 100 && onServer.length < expectedWorkflows.length; i++) {
    onServer = await workflowsOnTaskQueue();
    if (onServer.length < expectedWorkflows.length) await new Promise((r) => setTimeout(r, 200));
  }
  expect(onServer).toEqual(expectedWorkflows);

  const skipped = (await request(h.app).get(`/api/signals/${signals[7]!.id}`).expect(200)).body;
  expect(skipped.state).toBe('unmatched');
  expect(skipped.not_matched).toEqual([
    {
      trigger_id: trigger.id,
      version: 1,
      reason: 'condition_false',
      clause: 'condition.instance.bucket',
      detail: 'instance.bucket is not 0',
    },
  ]);
  expect(skipped.reason).toMatch(/condition/);
}, 240_000);

test('a transition pending → paid fires once across saves pending, pending, paid, paid, refunded, and never for a signal without previous', async () => {
  const trigger = await createTrigger('/order', { 'instance.status': { $changed: { from: 'pending', to: 'paid' } } }, 'per_instance');
  const statuses = ['pending', 'pending', 'paid', 'paid', 'refunded'];
  const saves = statuses.map((status, i) => ({
    id: `${run}-order-${i}`,
    signal: 'post_save',
    app_label: 'shop',
    model_name: 'order',
    instance: { id: 7, status },
    ...(i === 0 ? {} : { previous: { id: 7, status: statuses[i - 1] } }),
  }));
  const noPrevious = {
    id: `${run}-order-no-previous`,
    signal: 'post_save',
    app_label: 'shop',
    model_name: 'order',
    instance: { id: 8, status: 'paid' },
  };
  const states: string[] = [];
  for (const s of [...saves, noPrevious]) states.push((await request(h.app).post('/api/signals').send(s).expect(202)).body.state);
  expect(states).toEqual(['unmatched', 'unmatched', 'queued', 'unmatched', 'unmatched', 'unmatched']);

  await waitForDispatch(h.app, saves[2]!.id, (s) => s.state === 'completed');
  await rx.waitFor(() => rx.count('/order') >= 1);
  const body = JSON.parse(rx.on('/order')[0]!.body);
  expect(body).toMatchObject({ signal_id: saves[2]!.id, instance: { status: 'paid' }, previous: { status: 'pending' } });

  const repeat = (await request(h.app).get(`/api/signals/${saves[3]!.id}`).expect(200)).body;
  expect(repeat.not_matched).toEqual([
    expect.objectContaining({ trigger_id: trigger.id, reason: 'condition_false', clause: 'condition.instance.status.$changed' }),
  ]);
  expect(repeat.not_matched[0].detail).toBe('instance.status did not change from "pending" to "paid"');
  const unexplained = (await request(h.app).get(`/api/signals/${noPrevious.id}`).expect(200)).body;
  expect(unexplained.not_matched[0]).toMatchObject({ reason: 'condition_false', detail: 'the signal has no previous state' });
  // The unmatched signals' instances (and previous states) are not kept.
  expect(rx.count('/order')).toBe(1);
}, 120_000);
