/**
 * How a broker type describes the keys it reads from a broker's `conn_details` and `params` (a
 * trigger's `parameters`), after a `msg_broker_queues` entry's keys are merged over the
 * configured broker's. Each publisher module declares its table (`keys`); its settings reader
 * reads only those keys (src/destinations/broker-kit/settings.ts), trigger validation and the OpenAPI
 * document read the same tables through the registry. Pure data.
 *
 * Every value may hold `{{ … }}` templates, rendered in the worker at each attempt: instance
 * attributes and the allow-listed dynamic values. A key's `format` is checked when the config
 * loads and when a trigger is written only if its value is a literal; a templated one is checked
 * once rendered.
 */

/**
 * A key that says where messages go: a host, URL, endpoint, or the name of a queue, topic or
 * project the worker's credentials reach. A trigger may set one only where the broker's
 * `trigger_overrides` lists it (src/destinations/brokers/addresses.ts reads the hosts out of it):
 * - `url`: a URL whose host the worker connects to;
 * - `host`, `port`: the host (or port) the worker connects to;
 * - `host-ports`: `host:port`, comma-separated;
 * - `destination`: where messages go on the configured connection (no host of its own).
 */
export type AddressKind = 'url' | 'host' | 'port' | 'host-ports' | 'destination';

/** What a value typically is, beyond a literal. */
export type KeyUse =
  /** Holds a credential: give it as a dynamic value (`{{ env.… }}`, `{{ secrets.… }}`), resolved only in the worker. */
  | 'secret'
  /** Often a template over the instance (`{{ instance.id }}`), so that it differs per message. */
  | 'per-message';

export interface SettingsKey {
  readonly description: string;
  /** Required after merging, always. */
  readonly required?: true;
  /** Required after merging unless this (another key, in words) is given. */
  readonly requiredUnless?: string;
  readonly use?: KeyUse;
  /** The value's format, checked once it is a literal. */
  readonly format?: string;
  /** What an absent key means. */
  readonly default?: string;
  /** Set when the key says where messages go (see AddressKind). */
  readonly address?: AddressKind;
}

/** `conn_details`: where and as whom to connect; `params`: where the message goes. */
export interface BrokerKeys {
  readonly conn_details: Readonly<Record<string, SettingsKey>>;
  readonly params: Readonly<Record<string, SettingsKey>>;
}

export type KeySection = keyof BrokerKeys;
