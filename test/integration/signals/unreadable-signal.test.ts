import request from 'supertest';
import { DISPATCH_REFUSED, SIGNAL_ACCEPTED, signalStreamOf } from '../../../src/model/signals/signal-record';
import { startDispatchHarness } from '../../support/dispatch-harness';
import { startReceiver } from '../../support/receiver';
import { waitForDispatch } from '../../support/signals';
import { postTrigger, triggerBody } from '../../support/trigger-body';

/**
 * A stored signal this build cannot read (written by a newer build, or damaged) is recorded as
 * refused, with why and none of its values; the relay and the read model go on with the rest.
 */
const SECRET = 'sk_live_odd_signal_value';

const oddAcceptance = (id: string, over: Record<string, unknown>) => ({
  type: SIGNAL_ACCEPTED,
  data: {
    signal: {
      id,
      signal: 'post_save',
      app_label: 'shop',
      model_name: 'order',
      instance: { token: SECRET },
      occurred_at: '2026-12-01T00:00:00Z',
    },
    plan: { triggers: [], actions: [] },
    not_matched: [],
    not_matched_truncated: false,
    ...over,
  },
  metadata: { accepted_at: new Date().toISOString() },
});

test('an unreadable stored signal is refused, naming the field but no value, and the signals after it are delivered', async () => {
  const rx = await startReceiver();
  const h = await startDispatchHarness({});
  try {
    await postTrigger(h.app, triggerBody({ webhooks: [{ url: rx.url('/orders'), http_method: 'POST' }] }));
    // One from a newer build (a not_matched reason this build lacks), one whose plan is damaged.
    const newer = oddAcceptance('odd-newer', { not_matched: [{ trigger_id: 't', version: 1, reason: 'a_future_reason' }] });
    const damaged = oddAcceptance('odd-damaged', { plan: { triggers: [], actions: SECRET } });
    await h.store.append(signalStreamOf('odd-newer'), [newer], 'no_stream');
    await h.store.append(signalStreamOf('odd-damaged'), [damaged], 'no_stream');

    const id = (
      await request(h.app)
        .post('/api/signals')
        .send({ signal: 'post_save', app_label: 'shop', model_name: 'order', instance: { id: 1 } })
        .expect(202)
    ).body.id as string;
    const status = await waitForDispatch(h.app, id);
    expect(status.actions.map((a: { state: string }) => a.state)).toEqual(['delivered']);
    expect(rx.on('/orders')).toHaveLength(1);

    for (const [odd, field] of [
      ['odd-newer', 'not_matched'],
      ['odd-damaged', 'plan.actions'],
    ] as const) {
      const events = await h.store.read(signalStreamOf(odd));
      const refusals = events.filter((e) => e.type === DISPATCH_REFUSED);
      expect(refusals).toHaveLength(1);
      const reason = String(refusals[0]!.data.reason);
      expect(reason).toMatch(new RegExp(`^this build cannot read the stored signal \\(signal-${odd}@0\\): .*${field.replace('.', '\\.')}`));
      expect(reason).not.toContain(SECRET);
      // Its own status names the event, and is a 503 that says why; still without the value.
      const own = await request(h.app).get(`/api/signals/${odd}`).expect(503);
      expect(JSON.stringify(own.body)).toMatch(new RegExp(`signal-${odd}@0 cannot be read`));
      expect(JSON.stringify(own.body)).not.toContain(SECRET);
    }
    // The read model went on past them: the list answers, with the delivered signal in it.
    const list = await request(h.app).get('/api/signals').expect(200);
    expect(JSON.stringify(list.body)).toContain(id);
    expect(JSON.stringify(list.body)).not.toContain(SECRET);
  } finally {
    await h.close();
    await rx.close();
  }
});
