import request from 'supertest';
import { MAX_NOT_MATCHED, notMatchedOf } from '../../../src/signals/intake/not-matched';
import { matchSignal } from '../../../src/signals/intake/match';
import { planningOf } from '../../../src/config';
import { aTrigger, startTestApp } from '../../support/test-app';

/** Why a signal matched no trigger: read from the read model's index, bounded per signal. */
let t: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const signal = (model: string) => ({
  id: 'x',
  signal: 'post_save' as const,
  app_label: 'why',
  model_name: model,
  instance: {},
  occurred_at: new Date().toISOString(),
});
const create = (model: string, over: Record<string, unknown>) =>
  request(t.app)
    .post('/api/action-triggers')
    .send(aTrigger({ content_types: [{ app_label: 'why', model_name: model }], msg_broker_queues: [], ...over }))
    .expect(201);

test('names at most MAX_NOT_MATCHED triggers and says when there were more; each with its reason', async () => {
  for (let i = 0; i < MAX_NOT_MATCHED + 5; i++) await create('many', { active: false });
  const many = matchSignal(t.readModel, planningOf(t.config))(signal('many'));
  expect(many.plan).toEqual({ triggers: [], actions: [] });
  expect(many.not_matched).toHaveLength(MAX_NOT_MATCHED);
  expect(many.not_matched_truncated).toBe(true);
  expect(new Set(many.not_matched.map((n) => n.reason))).toEqual(new Set(['inactive']));

  const other = (await create('few', { config_signals: [{ signal: 'pre_delete' }] })).body.id;
  const matched = (await create('few', {})).body;
  const few = matchSignal(t.readModel, planningOf(t.config))(signal('few'));
  expect(few.plan.triggers).toEqual([{ triggerId: matched.id, version: matched.version }]);
  expect({ not_matched: few.not_matched, not_matched_truncated: few.not_matched_truncated }).toEqual({
    not_matched: [{ trigger_id: other, version: 1, reason: 'another_signal', watches: ['pre_delete'] }],
    not_matched_truncated: false,
  });
  // The same read with another limit (its own statement) gives the same answer; an active trigger
  // watching the signal is never listed as not matched.
  expect(notMatchedOf(t.readModel.watching('why', 'few', 50), signal('few'), [])).toEqual({
    not_matched: [{ trigger_id: other, version: 1, reason: 'another_signal', watches: ['pre_delete'] }],
    not_matched_truncated: false,
  });
});
