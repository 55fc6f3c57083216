import type * as t from 'io-ts';
import type { ActionKind } from '../../dispatch/types';
import type { Pace, PaceLimit } from '../../dispatch/pacing';
import type { FieldError } from '../../kernel/field-errors';
import type { Channel, Entries, Prepared } from './channel';
import type { ConfiguredLimit } from './limits';
import type { Schema } from './openapi';
import type { SharedPolicy } from './policy';
import type { TargetCheck } from './target-guard';

/** A kind's section of the config file: its keys, each optional. */
export type SectionOf<Keys extends t.Props> = { readonly [K in keyof Keys]?: t.TypeOf<Keys[K]> };

/** What a kind keeps from its section, read once at start, and the section's problems by path. */
export interface KindSettings<Settings> {
  readonly settings: Settings;
  readonly errors: FieldError[];
}

/** Files a section names (secrets mounted in a container), read at start relative to the working directory. */
export interface StartFiles {
  read(path: string): string;
}

/** What every kind sends under beyond its own section. */
export interface SharedSettings {
  /** Off: every connection passes the SSRF guard, and hosts a trigger wrote must be public. */
  readonly allowPrivateTargets: boolean;
  /** The guard's check of a target, in a dry run (tests give their own resolver). */
  readonly checkTarget?: (url: string) => Promise<TargetCheck>;
}

/** A kind's channel on the clients it opened for it (an HTTP agent, broker connections). */
export interface Opened<Entry> {
  readonly channel: Channel<Entry>;
  close(): Promise<void>;
}

/** What a dry run shows of one action beside its request or message view, and what would stop it. */
export interface Shown {
  readonly warnings: string[];
  readonly refused?: string;
  readonly error_type?: string;
  readonly retried?: boolean;
}

/** How a kind shows a prepared action in a dry run, sending nothing. */
export type Preview<Entry, View extends Shown> = (prepared: Prepared<Entry>, nowSecs: number) => Promise<View>;

/**
 * One kind of destination a trigger lists (its webhooks, its broker queues): its section of the
 * config file, what the API checks and documents, and what the worker sends with. The registry
 * (../registry.ts) holds one per kind and is the only door into a kind's folder; the broker kind
 * holds a publisher per broker type (../brokers/registry.ts).
 */
export interface Destination<Entry, Keys extends t.Props, Settings, View extends Shown, Policy extends SharedPolicy> {
  readonly kind: ActionKind;
  /** The trigger field that lists entries of this kind. */
  readonly field: 'webhooks' | 'msg_broker_queues';
  /** At most this many entries per trigger. */
  readonly maxPerTrigger: number;
  /** The kind's keys of the config file (the file is closed over every kind's and the shared ones). */
  readonly configKeys: Keys;
  /** What the kind keeps from its section at start, and the section's problems (named at start, all at once). */
  settingsOf(section: SectionOf<Keys>, files: StartFiles): KindSettings<Settings>;
  /** The kind's own part of what the config allows its entries (the shared part is the config's). */
  policyOf(settings: Settings): Omit<Policy, keyof SharedPolicy>;
  /** One entry, checked against what the config allows (every write of a trigger). */
  codec(policy: Policy): t.Type<Entry, Entry, unknown>;
  /** An entry as stored events hold it (structural: a stricter rule for new writes never hides a stored trigger). */
  readonly stored: t.Type<Entry, unknown, unknown>;
  /** The OpenAPI schema of the trigger field, for this config. */
  schema(policy: Policy): Schema;
  /** The OpenAPI document's component schemas the kind adds (the broker types' settings). */
  components(): Record<string, Schema>;
  /** The OpenAPI schemas of the fields its dry-run view adds to an action (`request`, `message`). */
  viewSchemas(): Record<string, Schema>;
  /** How an action finds its entry and what of it holds templates (attempts and dry runs alike). */
  entries(settings: Settings): Entries<Entry>;
  /** The worker's channel, on clients opened for it. */
  open(settings: Settings, shared: SharedSettings): Opened<Entry>;
  /** The dry run's view of an action. */
  preview(settings: Settings, shared: SharedSettings): Preview<Entry, View>;
  /** The `broker_type` label of an entry's metrics: `none` where the kind has none, `unknown` where the type is gone. */
  brokerTypeOf(settings: Settings, entry: Entry | undefined): string;
  /**
   * The config's limit over an entry's destination, keyed by the destination (`webhook:<name>`,
   * `broker:<name>`): every trigger sending there shares it. Undefined when none applies.
   */
  paceOf(settings: Settings, entry: Entry): Pace | undefined;
  /** A key's limit in today's config; undefined when the config no longer has it. */
  paceLimitOf(settings: Settings, key: string): PaceLimit | undefined;
  /** Every limit the kind's section sets, by name (what an operator reads back). */
  limits(settings: Settings): ConfiguredLimit[];
}
