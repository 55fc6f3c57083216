import {
  AlertRules,
  Backlogs,
  boundWatching,
  BreakerFact,
  deactivatedAlert,
  onBacklog,
  onBreakerFact,
  Watching,
} from '../../src/model/alerts/decide';
import type { Alert } from '../../src/model/alerts/alert';

const rules: AlertRules = { threshold: 10, failingAtPercent: [50, 90], adminUrl: 'https://at.example.com/admin/' };
const action = { key: 'w0', kind: 'webhook' as const, name: 'webhook 0 (https://hooks.example.com/in)' };
let position = 0n;
const fact = (type: BreakerFact['type'], version = 1, triggerId = 't1'): BreakerFact => ({
  position: ++position,
  triggerId,
  type,
  version,
  action,
  at: `2026-12-07T02:00:${String(Number(position) % 60).padStart(2, '0')}.000Z`,
  recordedAt: '2026-12-07T03:00:00.000Z',
});

/** Runs facts through, giving each one's alert type (or '-') and the state after. */
const run = (facts: BreakerFact[], r = rules, from: Watching = {}) => {
  let watching = from;
  const alerts: Array<Alert | undefined> = [];
  for (const f of facts) {
    const d = onBreakerFact(watching, f, r);
    watching = d.watching;
    alerts.push(d.alert);
  }
  return { watching, alerts, types: alerts.map((a) => a?.type ?? '-') };
};

test('an action failing every dispatch: exhausted at the first, failing at 50 % and 90 %, nothing at the threshold (the deactivation tells)', () => {
  const { types, alerts } = run(Array.from({ length: 12 }, () => fact('ActionFailed')));
  expect(types).toEqual(['action.exhausted', '-', '-', '-', 'action.failing', '-', '-', '-', 'action.failing', '-', '-', '-']);
  expect(alerts[4]).toMatchObject({ percent: 50, failed_dispatches: 5, threshold: 10, trigger_id: 't1', action });
  expect(alerts[8]).toMatchObject({ percent: 90, failed_dispatches: 9 });
  expect(alerts[8]!.summary).toBe(
    'webhook 0 (https://hooks.example.com/in) failed every attempt of 9 consecutive dispatches (90 % of the 10 that deactivate its trigger)',
  );
  expect(alerts[0]!.link).toBe('https://at.example.com/admin/#/triggers/t1');
  expect(alerts[8]!.first_failure_at).toBe(alerts[0]!.occurred_at);
});

test('a delivery after failures: one action.recovered with the streak, then nothing more is watched', () => {
  const { types, alerts, watching } = run([fact('ActionFailed'), fact('ActionFailed'), fact('ActionRecovered')]);
  expect(types).toEqual(['action.exhausted', '-', 'action.recovered']);
  expect(alerts[2]).toMatchObject({
    failed_dispatches: 2,
    summary: 'webhook 0 (https://hooks.example.com/in) delivered again after 2 dispatches that failed for good',
  });
  expect(watching).toEqual({});
});

test('a reactivated trigger (a newer version) failing again is a new run: exhausted again, its levels afresh; the streak goes on', () => {
  const before = run(Array.from({ length: 9 }, () => fact('ActionFailed'))).watching;
  const { types, alerts } = run([fact('ActionFailed', 2), fact('ActionFailed', 2), fact('ActionFailed', 1)], rules, before);
  expect(types).toEqual(['action.exhausted', '-', '-']);
  expect(alerts[0]).toMatchObject({ failed_dispatches: 1 });
  // An older version's failure (a dispatch retrying from before the reactivation) changes nothing.
  const recovered = run([fact('ActionFailed', 2), fact('ActionRecovered', 2)], rules, before).alerts[1];
  expect(recovered).toMatchObject({ type: 'action.recovered', failed_dispatches: 10 });
});

test('levels only below the threshold, and each once: a threshold of 2 alerts failing at the first failure; of 1, nothing (it trips at once)', () => {
  expect(run([fact('ActionFailed'), fact('ActionFailed')], { ...rules, threshold: 2 }).types).toEqual(['action.failing', '-']);
  expect(run([fact('ActionFailed')], { ...rules, threshold: 1 }).types).toEqual(['-']);
});

test('ids come from the fact: the same fact decided again (a restart) raises the same alert', () => {
  const f = fact('ActionFailed');
  expect(onBreakerFact({}, f, rules).alert!.id).toBe(onBreakerFact({}, f, rules).alert!.id);
  expect(deactivatedAlert({ position: 7n, triggerId: 't9', reason: 'webhook 0 answered 410 Gone', occurredAt: 'x' }, rules)).toMatchObject({
    id: 'alrt_t7',
    type: 'trigger.deactivated',
    summary: 'the circuit breaker deactivated trigger t9: webhook 0 answered 410 Gone',
    link: 'https://at.example.com/admin/#/triggers/t9',
  });
});

test('a backlog past its threshold: one alert as it goes past, none while it stays, again only after it fell below half', () => {
  let backlogs: Backlogs = {};
  const look = (backlog: number) => {
    const d = onBacklog(backlogs, { key: 'webhook:partner', backlog, at: '2026-12-07T02:00:00.000Z' }, 100, rules);
    backlogs = d.backlogs;
    return d.alert;
  };
  expect([look(50), look(100)]).toEqual([undefined, undefined]);
  expect(look(101)).toMatchObject({
    id: 'alrt_d1_webhook:partner',
    type: 'destination.backlog',
    destination: 'webhook:partner',
    backlog: 101,
    threshold: 100,
    link: 'https://at.example.com/admin/#/limits',
  });
  expect([look(500), look(99), look(51), look(120)]).toEqual([undefined, undefined, undefined, undefined]);
  expect([look(49), look(101)].map((a) => a?.id)).toEqual([undefined, 'alrt_d2_webhook:partner']);
});

test('the watched actions are bounded: those that failed last are kept', () => {
  const watched = (last: string) => ({ version: 1, failures: 1, level: 0, streak: 1, first: last, last });
  const watching = { a: watched('2026-12-07T01:00:00Z'), b: watched('2026-12-07T03:00:00Z'), c: watched('2026-12-07T02:00:00Z') };
  expect(Object.keys(boundWatching(watching, 2)).sort()).toEqual(['b', 'c']);
  expect(boundWatching(watching, 3)).toBe(watching);
});
