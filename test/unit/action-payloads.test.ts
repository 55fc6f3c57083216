import { buildTriggerInputCodec, buildTriggerPatchCodec } from '../../src/model/triggers/codecs';
import { toFieldErrors } from '../../src/kernel/field-errors';
import { readStoredEvent } from '../../src/model/triggers/stored-events';
import { configFrom, policyOf } from '../../src/config';
import { prepareAction } from '../../src/delivery/attempt';
import type { DynamicValueSource } from '../../src/delivery/dynamic-values';
import type { ActionLists, Entries } from '../../src/destinations/port/channel';
import { webhookEntries } from '../../src/destinations/webhook/channel';
import { brokerEntries } from '../../src/destinations/brokers/channel';
import type { ActionPlan, SignalEnvelope } from '../../src/dispatch/types';
import { MAX_TRIGGER_BYTES } from '../../src/kernel/limits';
import { aTrigger, BROKERS_CONFIG } from '../support/test-app';

const policy = policyOf(configFrom(BROKERS_CONFIG));
const codec = buildTriggerInputCodec(policy);
const errorsOf = (codecOf: typeof codec | ReturnType<typeof buildTriggerPatchCodec>, body: unknown) => {
  const r = codecOf.decode(body);
  return r._tag === 'Left' ? toFieldErrors(r.left) : [];
};
const hook = (over: Record<string, unknown> = {}) => ({ url: 'https://hooks.example.com/a', http_method: 'POST', ...over });

describe('an entry payload is checked at write time as the trigger payload is', () => {
  test('a webhook and a queue with their own payloads decode, kept on their entries', () => {
    const r = codec.decode(
      aTrigger({
        webhooks: [
          hook({ payload: { id: '{{ instance.id }}', token: '{{ env.WEBHOOK_TOKEN }}', at: ['{{ previous.at }}', 1.5] } }),
          hook(),
        ],
        msg_broker_queues: [{ name: 'orders', payload: 'order {{ instance.id }} saved' }],
      }),
    );
    expect(r._tag).toBe('Right');
    if (r._tag !== 'Right') return;
    const { webhooks, msg_broker_queues } = r.right.definition;
    expect(webhooks[0]).toMatchObject({ payload: { id: '{{ instance.id }}', token: '{{ env.WEBHOOK_TOKEN }}' } });
    expect(webhooks[1]).not.toHaveProperty('payload');
    expect(msg_broker_queues[0]).toEqual({ name: 'orders', payload: 'order {{ instance.id }} saved' });
  });

  test('a bad template is named by its path inside the entry', () => {
    expect(errorsOf(codec, aTrigger({ webhooks: [hook({ payload: { x: '{{ not a path }}' } })] }))).toEqual([
      { path: 'webhooks[0].payload.x', message: expect.stringContaining('is not a valid template expression') },
    ]);
    expect(errorsOf(codec, aTrigger({ webhooks: [hook(), hook({ payload: { order: { id: ['{{ instance. }}'] } } })] }))).toEqual([
      { path: 'webhooks[1].payload.order.id[0]', message: expect.stringContaining('is not a valid template expression') },
    ]);
  });

  test('a dynamic value off the allow-list is refused, in a webhook and in a queue', () => {
    const errors = errorsOf(
      codec,
      aTrigger({
        webhooks: [hook({ payload: { key: '{{ env.DATABASE_URL }}' } })],
        msg_broker_queues: [{ name: 'orders', payload: ['{{ secrets.other }}'] }],
      }),
    );
    expect(errors).toEqual([
      { path: 'webhooks[0].payload.key', message: expect.stringContaining('is not an allowed dynamic value') },
      { path: 'msg_broker_queues[0].payload[0]', message: expect.stringContaining('is not an allowed dynamic value') },
    ]);
  });

  test('a prototype path is refused as in the trigger payload; a PATCH checks entries the same way', () => {
    const body = { webhooks: [hook({ payload: { x: '{{ instance.constructor }}' } })] };
    expect(errorsOf(buildTriggerPatchCodec(policy), body)).toEqual([
      { path: 'webhooks[0].payload.x', message: expect.stringContaining('may not use constructor') },
    ]);
  });

  test('null leaves the entry without a payload of its own (its action sends the trigger payload)', () => {
    const r = codec.decode(aTrigger({ webhooks: [hook({ payload: null })], msg_broker_queues: [{ name: 'orders', payload: null }] }));
    expect(r._tag === 'Right' && r.right.definition.webhooks[0]).toEqual({ url: 'https://hooks.example.com/a', http_method: 'POST' });
    expect(r._tag === 'Right' && r.right.definition.msg_broker_queues[0]).toEqual({ name: 'orders' });
  });

  test("the trigger's size bound covers the entries' payloads", () => {
    const big = 'x'.repeat(MAX_TRIGGER_BYTES / 2);
    expect(errorsOf(codec, aTrigger({ webhooks: [hook({ payload: big }), hook({ payload: big })] }))).toEqual([
      { path: 'webhooks', message: expect.stringContaining(`at most ${MAX_TRIGGER_BYTES}`) },
    ]);
  });
});

describe('stored events', () => {
  const read = (definition: unknown) =>
    readStoredEvent({
      type: 'TriggerCreated',
      data: { schema_version: 1, trigger_id: 't1', definition },
      streamId: 'action_trigger-t1',
      revision: 0n,
    });

  test('an entry payload is read back; an event written before entries had one reads as before', () => {
    const withPayloads = aTrigger({
      webhooks: [hook({ payload: { a: '{{ any.thing }}' } })],
      msg_broker_queues: [{ name: 'gone', payload: 7 }],
    });
    const event = read(withPayloads);
    expect(event.type === 'TriggerCreated' && event.data.definition.webhooks[0]).toEqual({ ...hook(), payload: { a: '{{ any.thing }}' } });
    expect(event.type === 'TriggerCreated' && event.data.definition.msg_broker_queues[0]).toEqual({ name: 'gone', payload: 7 });
    const before = read(aTrigger());
    expect(before.type === 'TriggerCreated' && before.data.definition.webhooks[0]).not.toHaveProperty('payload');
  });
});

describe('an action renders its own payload, else the trigger payload', () => {
  const signal: SignalEnvelope = {
    id: 's1',
    signal: 'post_save',
    app_label: 'shop',
    model_name: 'order',
    instance: { id: 42 },
    occurred_at: '2025-01-01T00:00:00.000Z',
  };
  const planOf = (kind: ActionPlan['kind'], index: number): ActionPlan => ({
    triggerId: 't1',
    version: 1,
    kind,
    index,
    deliveryId: `s1.t1.${kind === 'webhook' ? 'w' : 'q'}${index}`,
    timeoutSecs: 5,
  });
  const asked: string[][] = [];
  const values: DynamicValueSource = {
    resolve: async (paths) => {
      asked.push([...paths]);
      return new Map(paths.map((p) => [p, `<${p}>`]));
    },
  };
  const definition: ActionLists = {
    webhooks: [hook({ payload: { own: '{{ instance.id }}', token: '{{ env.WEBHOOK_TOKEN }}' } }), hook()],
    msg_broker_queues: [{ name: 'orders', payload: 'queued {{ instance.id }}' }],
    payload: { shared: '{{ instance.id }}', secret: '{{ secrets.token }}' },
  };
  const bodyOf = async <T>(entries: Entries<T>, kind: ActionPlan['kind'], index: number) =>
    (await prepareAction(entries, definition, values, { plan: planOf(kind, index), signal }, 1)).rendered;
  const brokers = { orders: { broker_type: 'rabbitmq', conn_details: {}, params: { queue: 'orders' } } };

  test('each webhook and queue sends its own body; only the values it renders are resolved', async () => {
    asked.length = 0;
    expect(await bodyOf(webhookEntries, 'webhook', 0)).toMatchObject({
      body: JSON.stringify({ own: 42, token: '<env.WEBHOOK_TOKEN>' }),
      contentType: 'application/json',
    });
    expect(await bodyOf(webhookEntries, 'webhook', 1)).toMatchObject({ body: JSON.stringify({ shared: 42, secret: '<secrets.token>' }) });
    expect(await bodyOf(brokerEntries(brokers as never), 'broker', 0)).toMatchObject({
      body: 'queued 42',
      contentType: 'text/plain; charset=utf-8',
    });
    // The replaced trigger payload's `secrets.token` is resolved only for the action that sends it.
    expect(asked).toEqual([['env.WEBHOOK_TOKEN'], ['secrets.token'], []]);
  });
});
