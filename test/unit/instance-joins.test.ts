import { InstanceJoins, Order } from '../../src/signals/intake/instance-orders';

const order = (key: string): Order => ({ workflowId: `ordered-t-${key}`, triggerId: 't', instanceKey: key });

/** Joins whose sends are recorded; `holding` says whether the relay still holds its lease. */
const recordingJoins = (holding = () => true) => {
  const sends: Array<{ order: string; ids: string[] }> = [];
  const joins = new InstanceJoins({
    send: async (o, ids) => { sends.push({ order: o.instanceKey, ids }); },
    holding,
    gone: () => new Error('lease lost'),
    retryPause: async () => undefined,
  });
  return { joins, sends };
};

test('dispatches that start out of store order join their instance order in store order, the waiting ones in one send', async () => {
  const { joins, sends } = recordingJoins();
  const a = joins.reserve([order('i1')]);
  const b = joins.reserve([order('i1')]);
  const c = joins.reserve([order('i1')]);
  // Started b first, then c: both wait for a, which the store accepted before them.
  joins.fill(b.places, 'signal-b');
  joins.fill(c.places, 'signal-c');
  await new Promise((r) => setImmediate(r));
  expect(sends).toEqual([]);
  expect(joins.pending).toBe(3);
  joins.fill(a.places, 'signal-a');
  await Promise.all([a.sent, b.sent, c.sent]);
  expect(sends).toEqual([{ order: 'i1', ids: ['signal-a', 'signal-b', 'signal-c'] }]);
  expect(joins.pending).toBe(0);
});

test('a signal in two orders is sent to each; one whose dispatch never started is skipped without holding the next', async () => {
  const { joins, sends } = recordingJoins();
  const a = joins.reserve([order('i1'), order('i2')]);
  const b = joins.reserve([order('i1')]);
  const c = joins.reserve([order('i1')]);
  joins.fill(a.places, 'signal-a');
  await a.sent;
  expect(sends).toEqual([{ order: 'i1', ids: ['signal-a'] }, { order: 'i2', ids: ['signal-a'] }]);
  joins.fill(c.places, 'signal-c');
  joins.fill(b.places, undefined);
  await Promise.all([b.sent, c.sent]);
  expect(sends.slice(2)).toEqual([{ order: 'i1', ids: ['signal-c'] }]);
  expect(joins.pending).toBe(0);
});

test('a relay that lost its lease gives its unsent places up: their dispatches are not put in the order', async () => {
  let holding = true;
  const { joins, sends } = recordingJoins(() => holding);
  const a = joins.reserve([order('i1')]);
  holding = false;
  joins.fill(a.places, 'signal-a');
  await expect(a.sent).rejects.toThrow('lease lost');
  expect(sends).toEqual([]);
  expect(joins.pending).toBe(0);
});

test('a relay waiting for room hears when waiting places were sent', async () => {
  const { joins } = recordingJoins();
  const a = joins.reserve([order('i1')]);
  let heard = false;
  const room = joins.whenSent().then(() => { heard = true; });
  await new Promise((r) => setImmediate(r));
  expect(heard).toBe(false);
  joins.fill(a.places, 'signal-a');
  await Promise.all([a.sent, room]);
  expect(joins.pending).toBe(0);
});
