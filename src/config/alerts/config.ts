/**
 * The config file's `alerts` section: where operational alerts go (`sinks`) and when they fire
 * (`failing_at_percent`, `backlog_threshold`). Files it names are read at start (settings.ts).
 */
import * as t from 'io-ts';
import { arrayOf, checked, closed } from '../../kernel/closed';
import { pathOf } from '../../kernel/field-errors';
import { HttpUrl, wholeFrom } from './fields';
import { SINK_CONFIGS, SinkConfig, SinkType } from './sink-config';

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);
const own = (u: Record<string, unknown>, key: string): unknown => (Object.prototype.hasOwnProperty.call(u, key) ? u[key] : undefined);
const SINK_TYPES = Object.keys(SINK_CONFIGS) as SinkType[];

/** One sink, checked by the codec of its `type`. */
const Sink = new t.Type<SinkConfig, SinkConfig, unknown>(
  'AlertSink',
  (u): u is SinkConfig => isObject(u) && SINK_TYPES.includes(own(u, 'type') as SinkType),
  (u, c) => {
    if (!isObject(u)) return t.failure(u, c, 'must be an object');
    const type = own(u, 'type');
    if (typeof type === 'string' && SINK_TYPES.includes(type as SinkType)) return SINK_CONFIGS[type as SinkType].validate(u, c);
    const message = type === undefined ? 'is required' : `must be one of ${SINK_TYPES.join(', ')}`;
    return t.failure(type, t.appendContext(c, 'type', t.string, type), message);
  },
  t.identity,
);

/** The sinks: each checked, and no name twice (named at the repeat, as `webhook_limits` does). */
const Sinks = new t.Type<SinkConfig[], SinkConfig[], unknown>(
  'AlertSinks',
  (u): u is SinkConfig[] => Array.isArray(u),
  (u, c) => {
    const result = arrayOf(Sink).validate(u, c);
    if (!Array.isArray(u)) return result;
    const errors = result._tag === 'Left' ? [...result.left] : [];
    const first = new Map<string, number>();
    u.forEach((item, i) => {
      const name = isObject(item) ? own(item, 'name') : undefined;
      if (typeof name !== 'string') return;
      const seen = first.get(name);
      if (seen === undefined) first.set(name, i);
      else {
        const context = t.appendContext(t.appendContext(c, String(i), Sink, item), 'name', t.string, name);
        errors.push({ value: name, context, message: `repeats the name of ${pathOf(c)}[${seen}]` });
      }
    });
    return errors.length > 0 ? t.failures(errors) : result;
  },
  t.identity,
);

/** The percents of the breaker's `consecutive_failures` at which `action.failing` fires, once each per run. */
const FailingAtPercent = checked(arrayOf(wholeFrom('Percent', 1, 99), 1), 'FailingAtPercent', (ps) =>
  ps.every((p, i) => i === 0 || p > ps[i - 1]!) ? undefined : 'must be in ascending order, each percent once',
);

export const AlertsConfig = closed(
  'Alerts',
  {},
  {
    /** Where the admin is served, so links in alerts are absolute (else they are paths). */
    admin_url: HttpUrl,
    failing_at_percent: FailingAtPercent,
    /** Deliveries waiting for a destination's limit past which `destination.backlog` fires. */
    backlog_threshold: wholeFrom('BacklogThreshold', 1),
    sinks: Sinks,
  },
);
export type AlertsConfig = t.TypeOf<typeof AlertsConfig>;
