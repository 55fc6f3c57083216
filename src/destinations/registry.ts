import type * as t from 'io-ts';
import type { ActionKind } from '../dispatch/types';
import type { Pace, PaceLimit } from '../dispatch/pacing';
import type { FieldError } from '../kernel/field-errors';
import type { ActionLists, Channel, Entries, Prepared } from './port/channel';
import type { Destination, KindSettings, SectionOf, SharedSettings, Shown, StartFiles } from './port/destination';
import type { Schema } from './port/openapi';
import type { SharedPolicy } from './port/policy';
import { ConfiguredLimit, paceNameIn } from './port/limits';
import { brokerDestination } from './brokers/destination';
import { webhookDestination } from './webhook/destination';

/**
 * Every kind of destination, by its action kind: the one door into the kinds' folders. Config
 * loading, the trigger codec, the OpenAPI document, the worker and the dry run loop over it. A
 * new broker type is one folder and one line in brokers/registry.ts.
 */
export const DESTINATIONS = {
  webhook: webhookDestination,
  broker: brokerDestination,
} as const;

type Kinds = typeof DESTINATIONS;
type Intersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type SettingsOf<D> = D extends Destination<infer _E, infer _K, infer S, infer _V, infer _P> ? S : never;
type PolicyOf<D> = D extends Destination<infer _E, infer _K, infer _S, infer _V, infer P> ? P : never;
/** Any kind, as the loops below handle it. */
type AnyDestination = Destination<unknown, t.Props, unknown, Shown, SharedPolicy>;
const KINDS = Object.keys(DESTINATIONS) as ActionKind[];
const kindOf = (kind: ActionKind) => DESTINATIONS[kind] as unknown as AnyDestination;
const byKind = <R>(f: (d: AnyDestination, kind: ActionKind) => R) =>
  Object.fromEntries(KINDS.map((k) => [k, f(kindOf(k), k)])) as Record<ActionKind, R>;

/** Every entry of a definition's lists (each kind's field, in the kinds' order): one action each. */
export const actionEntriesOf = (definition: ActionLists) =>
  KINDS.flatMap((kind) =>
    (definition[kindOf(kind).field] as ReadonlyArray<{ timeout_secs?: number }>).map((entry, index) => ({
      kind,
      index,
      timeoutSecs: entry.timeout_secs,
      entry: entry as unknown,
    })),
  );

/** Every kind's keys of the config file. */
export const DESTINATION_CONFIG_KEYS = { ...webhookDestination.configKeys, ...brokerDestination.configKeys };
export type DestinationSection = SectionOf<typeof DESTINATION_CONFIG_KEYS>;

/** What each kind keeps from the config file, by kind. */
export type DestinationSettings = { readonly [K in ActionKind]: SettingsOf<Kinds[K]> };

/** Each kind's settings from its section of the config file, and every kind's problems at once. */
export const destinationSettingsOf = (file: DestinationSection, files: StartFiles): KindSettings<DestinationSettings> => {
  const errors: FieldError[] = [];
  const settings = byKind((d) => {
    const read = d.settingsOf(file, files);
    errors.push(...read.errors);
    return read.settings;
  });
  return { settings: settings as DestinationSettings, errors };
};

/** What the config allows every kind's entries: the shared part and each kind's own. */
export type DestinationPolicy = Intersection<PolicyOf<Kinds[ActionKind]>>;

/** Each kind's own part of the policy, from its settings (the shared part is the config's). */
export const destinationPolicyOf = (settings: DestinationSettings): Omit<DestinationPolicy, keyof SharedPolicy> =>
  Object.assign({}, ...KINDS.map((k) => kindOf(k).policyOf(settings[k])));

/** The OpenAPI component schemas every kind adds. */
export const destinationComponents = (): Record<string, Schema> => Object.assign({}, ...KINDS.map((k) => kindOf(k).components()));

/** The OpenAPI schemas of every kind's dry-run view fields. */
export const destinationViewSchemas = (): Record<string, Schema> => Object.assign({}, ...KINDS.map((k) => kindOf(k).viewSchemas()));

/** The worker's channel of every kind, on clients opened for them; `close` closes them all. */
export const openDestinations = (settings: DestinationSettings, shared: SharedSettings) => {
  const opened = byKind((d, k) => d.open(settings[k], shared));
  return {
    channels: byKind((_, k) => opened[k].channel) as Record<ActionKind, Channel<unknown>>,
    close: async () => {
      await Promise.all(KINDS.map((k) => opened[k].close()));
    },
  };
};

type ViewOf<D> = D extends Destination<infer _E, infer _K, infer _S, infer V, infer _P> ? V : never;
/** Every kind's dry-run view fields, each optional: an action shows its own kind's. */
export type ActionViews = Partial<Intersection<ViewOf<Kinds[ActionKind]>>>;

/** How a dry run prepares and shows an action of each kind. */
export interface KindPreview {
  readonly entries: Entries<unknown>;
  readonly show: (prepared: Prepared<unknown>, nowSecs: number) => Promise<Shown>;
}

export const destinationPreviews = (settings: DestinationSettings, shared: SharedSettings): Record<ActionKind, KindPreview> =>
  byKind((d, k) => ({ entries: d.entries(settings[k]), show: d.preview(settings[k], shared) }));

/** The config's limit over an entry's destination (an entry of `actionEntriesOf`); undefined when none applies. */
export const destinationPaceOf = (settings: DestinationSettings, kind: ActionKind, entry: unknown): Pace | undefined =>
  kindOf(kind).paceOf(settings[kind], entry);

/** A destination's limit in today's config, by its key (`webhook:<name>`, `broker:<name>`: the key names its kind). */
export const paceLimitOf = (settings: DestinationSettings, key: string): PaceLimit | undefined => {
  const kind = KINDS.find((k) => paceNameIn(k, key) !== undefined);
  return kind && kindOf(kind).paceLimitOf(settings[kind], key);
};

/** Every limit the config sets, each kind's own in the kinds' order. */
export const destinationLimits = (settings: DestinationSettings): Array<ConfiguredLimit & { kind: ActionKind }> =>
  KINDS.flatMap((kind) =>
    kindOf(kind)
      .limits(settings[kind])
      .map((l) => ({ ...l, kind })),
  );

/** The `broker_type` label of an action's metrics, from its entry in the definition (gone: undefined). */
export const brokerTypeLabel = (settings: DestinationSettings, kind: ActionKind, definition: ActionLists | undefined, index: number) => {
  const d = kindOf(kind);
  // The entry straight from its kind's field: no entries object built per attempt.
  return d.brokerTypeOf(settings[kind], definition?.[d.field][index]);
};

/** What the alerts reuse of the webhook kind: a signing secret's check, Standard Webhooks signing, a Retry-After read. */
export { signingSecretProblem } from './webhook/secrets';
export { signatureOf } from './webhook/signing';
export { retryAfterMs } from './webhook/retry-after';
