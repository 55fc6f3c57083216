import * as t from 'io-ts';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { arrayOf, checked, closed, described, NonEmptyString, stringMap } from './validation/closed';
import { FieldError, toFieldErrors } from './validation/field-errors';
import { BrokerOverrides, contentTypeKey, TriggerPolicy } from './triggers/policy';
import type { ContentType } from './triggers/codecs';
import type { RetrySettings } from './dispatch/types';
import type { BreakerSettings } from './breaker/state';
// Broker types this build can publish to; the others are a config error, not a silent no-op.
import { SUPPORTED_BROKER_TYPES } from '../activities/publishers/registry';
import { brokerSettingsProblems, splitSettingsPath } from './triggers/broker-settings';
import { BROKER_TYPES, BrokerType as BrokerTypeName } from './brokers/settings-keys';

export const SCOPES = ['triggers:read', 'triggers:write', 'signals:write', 'metrics:read'] as const;
export type Scope = (typeof SCOPES)[number];

const positive = (name: string) => checked(described(t.number, 'must be a number'), name,
  (n) => (Number.isFinite(n) && n > 0 ? undefined : 'must be greater than 0'));
const oneOf = <T extends string>(values: readonly T[], name: string) => new t.Type<T, T, unknown>(name,
  (u): u is T => values.includes(u as T),
  (u, c) => (values.includes(u as T) ? t.success(u as T) : t.failure(u, c, `must be one of ${values.join(', ')}`)),
  t.identity);
const regex = checked(described(t.string, 'must be a string'), 'RegExp', (s) => {
  try { new RegExp(s); return undefined; } catch (e) { return `is not a valid regular expression: ${(e as Error).message}`; }
});

/**
 * Which keys a trigger's `msg_broker_queues` entry may set over this broker's. Default: no
 * `conn_details` key (a trigger writer must not point the worker at another host or account),
 * any `parameters` key (they name queues and routing keys on the operator's broker).
 */
const TriggerOverrides = closed('TriggerOverrides', {}, { conn_details: arrayOf(NonEmptyString), parameters: arrayOf(NonEmptyString) });

/** Matched case-insensitively (as the origin project does), kept in lower case. */
const BrokerType = new t.Type<BrokerTypeName, string, unknown>('BrokerType',
  (u): u is BrokerTypeName => BROKER_TYPES.includes(u as BrokerTypeName),
  (u, c) => {
    const lower = typeof u === 'string' ? u.toLowerCase() : undefined;
    return BROKER_TYPES.includes(lower as BrokerTypeName) ? t.success(lower as BrokerTypeName)
      : t.failure(u, c, `must be one of ${BROKER_TYPES.join(', ')}`);
  }, String);

const Broker = checked(closed('Broker', { broker_type: BrokerType },
  { conn_details: stringMap(), params: stringMap(), trigger_overrides: TriggerOverrides }), 'Broker',
  (b) => (SUPPORTED_BROKER_TYPES.includes(b.broker_type) ? undefined
    : `broker_type ${b.broker_type} is not supported by this build yet (supported: ${SUPPORTED_BROKER_TYPES.join(', ')})`));

const ApiKey = checked(closed('ApiKey', { id: NonEmptyString, scopes: arrayOf(oneOf(SCOPES, 'Scope')) },
  { key: NonEmptyString, key_sha256: checked(described(t.string, 'must be a string'), 'Sha256',
    (s) => (/^[0-9a-fA-F]{64}$/.test(s) ? undefined : 'must be 64 hex characters')) }), 'ApiKey',
  (k) => (k.key === undefined && k.key_sha256 === undefined ? 'needs key_sha256 (or key, for local use)' : undefined));

const ContentTypeObject = closed('ContentType', { app_label: NonEmptyString, model_name: NonEmptyString }, {});
/**
 * `"app_label.model_name"`, or `{ "app_label", "model_name" }` when a part holds a dot (Django
 * allows `my.app`): a dotted string could be split in more than one place.
 */
const AllowedContentType = new t.Type<ContentType, ContentType, unknown>('AllowedContentType',
  (u): u is ContentType => ContentTypeObject.is(u),
  (u, c) => {
    if (typeof u !== 'string') return ContentTypeObject.validate(u, c);
    const m = /^([^.\s]+)\.([^.\s]+)$/.exec(u);
    return m ? t.success({ app_label: m[1]!, model_name: m[2]! })
      : t.failure(u, c, 'must be app_label.model_name, or an object {app_label, model_name} when a part holds a dot');
  }, t.identity);

export const ConfigFile = closed('Config', {}, {
  brokers: t.record(t.string, Broker),
  dynamic_values: closed('DynamicValues', {}, { module: NonEmptyString, allowed_paths: arrayOf(NonEmptyString) }),
  allowed_content_types: arrayOf(AllowedContentType),
  webhook_url_patterns: arrayOf(regex),
  allow_private_targets: described(t.boolean, 'must be true or false'),
  limits: closed('Limits', {}, {
    default_timeout_secs: positive('Secs'), max_webhook_timeout_secs: positive('Secs'),
    max_broker_timeout_secs: positive('Secs'), max_body_bytes: positive('Bytes') }),
  retry: closed('Retry', {}, {
    initial_interval_secs: positive('Secs'), backoff_coefficient: checked(positive('Coefficient'), 'Coefficient',
      (n) => (n >= 1 ? undefined : 'must be at least 1')),
    max_interval_secs: positive('Secs'), max_attempts: positive('Count') }),
  api_keys: arrayOf(ApiKey),
  signing_secret: NonEmptyString,
  signals: closed('Signals', {}, { retention_days: positive('Days') }),
  breaker: closed('Breaker', {}, {
    consecutive_failures: checked(positive('Count'), 'Count', (n) => (Number.isInteger(n) ? undefined : 'must be a whole number')),
    failing_for_hours: positive('Hours') }),
  metrics: closed('Metrics', {}, { enabled: described(t.boolean, 'must be true or false') }),
  temporal_ui_url: checked(NonEmptyString, 'HttpUrl', (s) => (/^https?:\/\/[^\s/?#]+/i.test(s) ? undefined : 'must be an http(s) URL')),
});
export type ConfigFile = t.TypeOf<typeof ConfigFile>;
export type Broker = t.TypeOf<typeof Broker>;

export interface Config {
  readonly file: ConfigFile;
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly eventStore: 'sqlite' | 'kurrentdb';
  readonly kurrentConnectionString: string | undefined;
  readonly temporal: {
    address: string | undefined; namespace: string; taskQueue: string; cliPath: string | undefined;
    /** Ports of the dev server started when there is no address. */
    devServerPort: number; uiPort: number;
  };
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Processes serving the API role (`--role=api`), sharing one port and the DATA_DIR files. */
  readonly apiProcesses: number;
  readonly limits: { defaultTimeoutSecs: number; maxWebhookTimeoutSecs: number; maxBrokerTimeoutSecs: number; maxBodyBytes: number };
  /** How long accepted signals are kept (and their ids deduplicated); `signals.retention_days`, default 30. */
  readonly signalRetentionMs: number;
  /**
   * `metrics.enabled` (default true); `METRICS_PORT`: where `--role=worker` serves `/metrics`
   * (the API roles serve it on their own port); `TEMPORAL_METRICS_ADDRESS`: where the Temporal
   * SDK serves its own Prometheus page (both off unless set).
   */
  readonly metrics: { enabled: boolean; workerPort: number | undefined; temporalBindAddress: string | undefined };
}

export class ConfigError extends Error {
  constructor(readonly errors: FieldError[]) {
    super(`invalid configuration:\n${errors.map((e) => `  ${e.path}: ${e.message}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const Env = closed('Env', {}, {
  HOST: NonEmptyString,
  PORT: checked(described(t.string, 'must be a string'), 'Port',
    (s) => (/^\d+$/.test(s) && Number(s) <= 65535 ? undefined : 'must be a port number (0-65535)')),
  DATA_DIR: NonEmptyString,
  EVENT_STORE: oneOf(['sqlite', 'kurrentdb'] as const, 'EventStore'),
  KURRENTDB_CONNECTION_STRING: NonEmptyString,
  TEMPORAL_ADDRESS: NonEmptyString,
  TEMPORAL_NAMESPACE: NonEmptyString,
  TEMPORAL_TASK_QUEUE: NonEmptyString,
  TEMPORAL_CLI_PATH: NonEmptyString,
  TEMPORAL_DEV_SERVER_PORT: checked(described(t.string, 'must be a string'), 'Port',
    (s) => (/^\d+$/.test(s) && Number(s) > 0 && Number(s) <= 65535 ? undefined : 'must be a port number (1-65535)')),
  TEMPORAL_UI_PORT: checked(described(t.string, 'must be a string'), 'Port',
    (s) => (/^\d+$/.test(s) && Number(s) > 0 && Number(s) <= 65535 ? undefined : 'must be a port number (1-65535)')),
  LOG_LEVEL: oneOf(['debug', 'info', 'warn', 'error'] as const, 'LogLevel'),
  ACTION_TRIGGERS_CONFIG: NonEmptyString,
  API_PROCESSES: checked(described(t.string, 'must be a string'), 'Count',
    (s) => (/^\d+$/.test(s) && Number(s) >= 1 && Number(s) <= 64 ? undefined : 'must be a whole number from 1 to 64')),
  METRICS_PORT: checked(described(t.string, 'must be a string'), 'Port',
    (s) => (/^\d+$/.test(s) && Number(s) <= 65535 ? undefined : 'must be a port number (0-65535)')),
  TEMPORAL_METRICS_ADDRESS: checked(described(t.string, 'must be a string'), 'HostPort',
    (s) => (/^[\w.:[\]-]+:\d{1,5}$/.test(s) ? undefined : 'must be host:port, e.g. 127.0.0.1:9464')),
});

const ENV_KEYS = ['HOST', 'PORT', 'DATA_DIR', 'EVENT_STORE', 'KURRENTDB_CONNECTION_STRING', 'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE', 'TEMPORAL_TASK_QUEUE', 'TEMPORAL_CLI_PATH', 'TEMPORAL_DEV_SERVER_PORT', 'TEMPORAL_UI_PORT', 'LOG_LEVEL',
  'ACTION_TRIGGERS_CONFIG', 'API_PROCESSES', 'METRICS_PORT', 'TEMPORAL_METRICS_ADDRESS'];

const readJsonFile = (path: string): unknown => {
  try { return JSON.parse(readFileSync(path, 'utf8')); } catch (e) {
    throw new ConfigError([{ path, message: `cannot be read as JSON: ${(e as Error).message}` }]);
  }
};

/** Decodes the config file (if any) and the deployment settings; throws ConfigError naming each bad key. */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config => {
  const picked = Object.fromEntries(ENV_KEYS.filter((k) => env[k] !== undefined && env[k] !== '').map((k) => [k, env[k]]));
  const e = Env.decode(picked);
  if (e._tag === 'Left') throw new ConfigError(toFieldErrors(e.left).map((x) => ({ ...x, path: `env.${x.path}` })));
  const filePath = resolve(cwd, e.right.ACTION_TRIGGERS_CONFIG ?? './action-triggers.config.json');
  const raw = existsSync(filePath) ? readJsonFile(filePath) : {};
  const decoded = ConfigFile.decode(raw);
  if (decoded._tag === 'Left') throw new ConfigError(toFieldErrors(decoded.left));
  return buildConfig(decoded.right, e.right, cwd);
};

const buildConfig = (file: ConfigFile, env: t.TypeOf<typeof Env>, cwd: string): Config => {
  const dataDir = env.DATA_DIR ?? './data';
  const limits = file.limits ?? {};
  const errors: FieldError[] = [];
  const defaultTimeout = limits.default_timeout_secs ?? 10;
  const maxWebhook = limits.max_webhook_timeout_secs ?? 30;
  const maxBroker = limits.max_broker_timeout_secs ?? 30;
  if (defaultTimeout > Math.min(maxWebhook, maxBroker)) {
    errors.push({ path: 'limits.default_timeout_secs', message: 'must not exceed the maximum time-outs' });
  }
  errors.push(...brokerConfigProblems(file.brokers ?? {}));
  if ((env.EVENT_STORE ?? 'sqlite') === 'kurrentdb' && !env.KURRENTDB_CONNECTION_STRING) {
    errors.push({ path: 'env.KURRENTDB_CONNECTION_STRING', message: 'is required when EVENT_STORE=kurrentdb' });
  }
  if (errors.length > 0) throw new ConfigError(errors);
  return {
    file,
    host: env.HOST ?? '127.0.0.1',
    port: Number(env.PORT ?? '8080'),
    dataDir: isAbsolute(dataDir) ? dataDir : resolve(cwd, dataDir),
    eventStore: env.EVENT_STORE ?? 'sqlite',
    kurrentConnectionString: env.KURRENTDB_CONNECTION_STRING,
    temporal: { address: env.TEMPORAL_ADDRESS, namespace: env.TEMPORAL_NAMESPACE ?? 'default',
      taskQueue: env.TEMPORAL_TASK_QUEUE ?? 'action-triggers', cliPath: env.TEMPORAL_CLI_PATH,
      devServerPort: Number(env.TEMPORAL_DEV_SERVER_PORT ?? '7233'), uiPort: Number(env.TEMPORAL_UI_PORT ?? '8233') },
    logLevel: env.LOG_LEVEL ?? 'info',
    apiProcesses: Number(env.API_PROCESSES ?? '1'),
    limits: { defaultTimeoutSecs: defaultTimeout, maxWebhookTimeoutSecs: maxWebhook, maxBrokerTimeoutSecs: maxBroker,
      maxBodyBytes: limits.max_body_bytes ?? 1048576 },
    signalRetentionMs: (file.signals?.retention_days ?? 30) * 86_400_000,
    metrics: { enabled: file.metrics?.enabled ?? true, workerPort: env.METRICS_PORT === undefined ? undefined : Number(env.METRICS_PORT),
      temporalBindAddress: env.TEMPORAL_METRICS_ADDRESS },
  };
};

/**
 * Each broker's settings as far as triggers cannot complete them: a missing key a trigger may
 * not set (see `trigger_overrides`) is a config error at start, named by its key.
 */
const brokerConfigProblems = (brokers: NonNullable<ConfigFile['brokers']>): FieldError[] =>
  Object.entries(brokers).flatMap(([name, broker]) => {
    const overrides = brokerOverridesOf(broker);
    return brokerSettingsProblems(broker, undefined, undefined).filter((e) => {
      const { field, key } = splitSettingsPath(e.path);
      return field === 'conn_details' ? !overrides.connDetails.has(key) : overrides.parameters !== undefined && !overrides.parameters.has(key);
    }).map((e) => ({ path: `brokers.${name}.${e.path}`, message: e.message }));
  });

/** The keys a trigger may set on one broker (see TriggerOverrides for the defaults). */
export const brokerOverridesOf = (broker: Broker): BrokerOverrides => ({
  connDetails: new Set(broker.trigger_overrides?.conn_details ?? []),
  parameters: broker.trigger_overrides?.parameters && new Set(broker.trigger_overrides.parameters),
});

/** The trigger validation rules this config implies. */
export const policyOf = (config: Config): TriggerPolicy => ({
  brokerNames: new Set(Object.keys(config.file.brokers ?? {})),
  brokerOverrides: new Map(Object.entries(config.file.brokers ?? {}).map(([name, b]) => [name, brokerOverridesOf(b)])),
  brokerTypes: new Map(Object.entries(config.file.brokers ?? {}).map(([name, b]) => [name, b.broker_type])),
  brokerSettings: (name, conn, params) => {
    const broker = Object.prototype.hasOwnProperty.call(config.file.brokers ?? {}, name) ? config.file.brokers![name] : undefined;
    return broker ? brokerSettingsProblems(broker, conn, params) : [];
  },
  allowedContentTypes: config.file.allowed_content_types
    && new Set(config.file.allowed_content_types.map((ct) => contentTypeKey(ct.app_label, ct.model_name))),
  // Sticky: anchored at the start of the URL (Python's re.match), whatever alternations the pattern holds.
  webhookUrlPatterns: (config.file.webhook_url_patterns ?? []).map((p) => new RegExp(p, 'y')),
  allowPrivateTargets: config.file.allow_private_targets ?? false,
  allowedDynamicPaths: new Set(config.file.dynamic_values?.allowed_paths ?? []),
  maxWebhookTimeoutSecs: config.limits.maxWebhookTimeoutSecs,
  maxBrokerTimeoutSecs: config.limits.maxBrokerTimeoutSecs,
});

/** A config for tests and embedding: the file's keys given directly, deployment defaults. */
export const configFrom = (file: unknown, env: NodeJS.ProcessEnv = {}): Config => {
  const decoded = ConfigFile.decode(file);
  if (decoded._tag === 'Left') throw new ConfigError(toFieldErrors(decoded.left));
  const e = Env.decode(env);
  if (e._tag === 'Left') throw new ConfigError(toFieldErrors(e.left));
  return buildConfig(decoded.right, e.right, process.cwd());
};

/**
 * The retry schedule of every action. Defaults (5 s doubling to at most 10 h, 20 attempts:
 * about 71 h in all) are longer than the Standard Webhooks recommendation (about 28 h).
 */
export const retrySettingsOf = (config: Config): RetrySettings => ({
  initialIntervalSecs: config.file.retry?.initial_interval_secs ?? 5,
  backoffCoefficient: config.file.retry?.backoff_coefficient ?? 2,
  maxIntervalSecs: config.file.retry?.max_interval_secs ?? 36000,
  maxAttempts: config.file.retry?.max_attempts ?? 20,
});

/**
 * When the circuit breaker deactivates a trigger: an action failed every attempt of 100
 * consecutive dispatches, or for 120 hours (5 days), as the Standard Webhooks recommendation has it.
 */
export const breakerSettingsOf = (config: Config): BreakerSettings => ({
  consecutiveFailures: config.file.breaker?.consecutive_failures ?? 100,
  failingForMs: (config.file.breaker?.failing_for_hours ?? 120) * 3_600_000,
});
