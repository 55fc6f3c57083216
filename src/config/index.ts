import * as t from 'io-ts';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { FieldError, toFieldErrors } from '../kernel/field-errors';
import { contentTypeKey, TriggerPolicy } from '../model/triggers/policy';
import type { RetrySettings } from '../dispatch/types';
import type { BreakerSettings } from '../model/breaker/state';
import { AlertsSettings, alertsSettingsOf } from './alerts/settings';
import type { Planning } from '../model/signals/matching';
import { destinationPolicyOf, DestinationSettings, destinationSettingsOf } from '../destinations/registry';
import { ConfigFile } from './file';
import { ConfigError, readJsonFile } from './errors';
import { withKeysFile } from './keys-file';
import { Env, ENV_KEYS } from './env';
import type { PostgresOptions } from '../event-store/postgres';

export { SCOPES, ConfigFile } from './file';
export { ConfigError } from './errors';
export type { Scope } from './file';

export interface Config {
  readonly file: ConfigFile;
  /** The config file read; undefined when there was none at the default path (defaults apply). */
  readonly configFile?: string;
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly eventStore: 'sqlite' | 'postgres' | 'kurrentdb';
  readonly kurrentConnectionString: string | undefined;
  /** With EVENT_STORE=postgres: POSTGRES_URL and the config file's `postgres` settings (defaults filled in). */
  readonly postgres: PostgresOptions | undefined;
  readonly temporal: {
    address: string | undefined;
    namespace: string;
    taskQueue: string;
    cliPath: string | undefined;
    /** Ports of the dev server started when there is no address. */
    devServerPort: number;
    uiPort: number;
  };
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Processes serving the API role (`--role=api`), sharing one port and the DATA_DIR files. */
  readonly apiProcesses: number;
  readonly limits: { defaultTimeoutSecs: number; maxWebhookTimeoutSecs: number; maxBrokerTimeoutSecs: number; maxBodyBytes: number };
  /** How long accepted signals are kept (and their ids deduplicated); `signals.retention_days`, default 30. */
  readonly signalRetentionMs: number;
  /** Whether a signal that matches no trigger is stored with its instance; `signals.keep_unmatched_instances`, default false. */
  readonly keepUnmatchedInstances: boolean;
  /** What each destination kind keeps from its keys of the file (the signing secrets' files read). */
  readonly destinations: DestinationSettings;
  /**
   * `metrics.enabled` (default true); `METRICS_PORT`: where `--role=worker` serves `/metrics`
   * (the API roles serve it on their own port); `TEMPORAL_METRICS_ADDRESS`: where the Temporal
   * SDK serves its own Prometheus page (both off unless set).
   */
  readonly metrics: { enabled: boolean; workerPort: number | undefined; temporalBindAddress: string | undefined };
  /** The `alerts` section, defaults filled in and the files it names read. */
  readonly alerts: AlertsSettings;
}

/** The top-level keys of a file that decoded but for these errors (to check the rest as well). */
const withoutBadKeys = (raw: unknown, errors: readonly FieldError[]): unknown => {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return {};
  const bad = new Set(errors.map((x) => /^[^.[]*/.exec(x.path)![0]));
  return Object.fromEntries(Object.entries(raw).filter(([key]) => !bad.has(key)));
};

/** Runs a stage of the checks; its errors join the others instead of ending the start early. */
const collecting = <A>(errors: FieldError[], stage: () => A): A | undefined => {
  try {
    return stage();
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    errors.push(...e.errors);
    return undefined;
  }
};

/**
 * Decodes the config file (if any) and the deployment settings; throws ConfigError naming every
 * bad key at once: the environment's, the file's, and those the checks across keys find in the
 * rest of the file (one start shows them all).
 */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config => {
  const errors: FieldError[] = [];
  const picked = Object.fromEntries(ENV_KEYS.filter((k) => env[k] !== undefined && env[k] !== '').map((k) => [k, env[k]]));
  const e = Env.decode(picked);
  const envErrors = e._tag === 'Left' ? toFieldErrors(e.left) : [];
  errors.push(...envErrors.map((x) => ({ ...x, path: `env.${x.path}` })));
  const rest = e._tag === 'Right' ? e : Env.decode(withoutBadKeys(picked, envErrors));
  const settings = rest._tag === 'Right' ? rest.right : {};
  const configName = typeof picked.ACTION_TRIGGERS_CONFIG === 'string' ? picked.ACTION_TRIGGERS_CONFIG : undefined;
  const filePath = resolve(cwd, configName ?? './action-triggers.config.json');
  const found = existsSync(filePath);
  // A file named by the environment and not there is a mistake (a typo, the wrong folder), not "no config".
  if (!found && configName !== undefined) {
    throw new ConfigError([...errors, { path: 'env.ACTION_TRIGGERS_CONFIG', message: `names ${filePath}, which does not exist` }]);
  }
  const raw = found ? collecting(errors, () => readJsonFile(filePath)) : {};
  const decoded = ConfigFile.decode(raw ?? {});
  const fileErrors = decoded._tag === 'Left' ? toFieldErrors(decoded.left) : [];
  errors.push(...fileErrors);
  const checkable = decoded._tag === 'Right' ? decoded : ConfigFile.decode(withoutBadKeys(raw, fileErrors));
  if (checkable._tag === 'Left') throw new ConfigError(errors);
  const keysFile = settings.API_KEYS_FILE;
  const file =
    keysFile === undefined
      ? checkable.right
      : { ...checkable.right, api_keys: collecting(errors, () => withKeysFile(checkable.right.api_keys ?? [], resolve(cwd, keysFile))) };
  const across: FieldError[] = [];
  const config = collecting(across, () => buildConfig(file, settings, cwd));
  // A key already named bad is not named again by a check that missed its value.
  errors.push(...across.filter((x) => !errors.some((y) => y.path === x.path)));
  if (errors.length > 0 || config === undefined) throw new ConfigError(errors);
  return { ...config, ...(found ? { configFile: filePath } : {}) };
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
  const destinations = destinationSettingsOf(file, { read: (path) => readFileSync(resolve(cwd, path), 'utf8') });
  errors.push(...destinations.errors);
  const alerts = alertsSettingsOf(file.alerts, (path) => readFileSync(resolve(cwd, path), 'utf8'), file.dynamic_values?.allowed_paths);
  errors.push(...alerts.errors);
  if ((env.EVENT_STORE ?? 'sqlite') === 'kurrentdb' && !env.KURRENTDB_CONNECTION_STRING) {
    errors.push({ path: 'env.KURRENTDB_CONNECTION_STRING', message: 'is required when EVENT_STORE=kurrentdb' });
  }
  if (env.EVENT_STORE === 'postgres' && !env.POSTGRES_URL) {
    errors.push({ path: 'env.POSTGRES_URL', message: 'is required when EVENT_STORE=postgres' });
  }
  if (errors.length > 0) throw new ConfigError(errors);
  return {
    file,
    host: env.HOST ?? '127.0.0.1',
    port: Number(env.PORT ?? '8080'),
    dataDir: isAbsolute(dataDir) ? dataDir : resolve(cwd, dataDir),
    eventStore: env.EVENT_STORE ?? 'sqlite',
    kurrentConnectionString: env.KURRENTDB_CONNECTION_STRING,
    postgres: env.EVENT_STORE === 'postgres' && env.POSTGRES_URL ? postgresOptionsOf(env.POSTGRES_URL, file.postgres ?? {}) : undefined,
    temporal: {
      address: env.TEMPORAL_ADDRESS,
      namespace: env.TEMPORAL_NAMESPACE ?? 'default',
      taskQueue: env.TEMPORAL_TASK_QUEUE ?? 'action-triggers',
      cliPath: env.TEMPORAL_CLI_PATH,
      devServerPort: Number(env.TEMPORAL_DEV_SERVER_PORT ?? '7233'),
      uiPort: Number(env.TEMPORAL_UI_PORT ?? '8233'),
    },
    logLevel: env.LOG_LEVEL ?? 'info',
    apiProcesses: Number(env.API_PROCESSES ?? '1'),
    limits: {
      defaultTimeoutSecs: defaultTimeout,
      maxWebhookTimeoutSecs: maxWebhook,
      maxBrokerTimeoutSecs: maxBroker,
      maxBodyBytes: limits.max_body_bytes ?? 1048576,
    },
    signalRetentionMs: (file.signals?.retention_days ?? 30) * 86_400_000,
    keepUnmatchedInstances: file.signals?.keep_unmatched_instances ?? false,
    destinations: destinations.settings,
    metrics: {
      enabled: file.metrics?.enabled ?? true,
      workerPort: env.METRICS_PORT === undefined ? undefined : Number(env.METRICS_PORT),
      temporalBindAddress: env.TEMPORAL_METRICS_ADDRESS,
    },
    alerts: alerts.settings,
  };
};

/** The PostgreSQL store's settings: pool and time-outs for a service that must answer 503 within seconds while the server is away. */
const postgresOptionsOf = (url: string, p: NonNullable<ConfigFile['postgres']>): PostgresOptions => ({
  url,
  schema: p.schema ?? 'action_triggers',
  poolMax: p.pool_max ?? 10,
  connectTimeoutMs: p.connect_timeout_ms ?? 5000,
  statementTimeoutMs: p.statement_timeout_ms ?? 15_000,
});

/** The trigger validation rules this config implies. */
export const policyOf = (config: Config): TriggerPolicy => ({
  // Each kind's own part (broker names and overrides, URL patterns, signing secret names) from its settings.
  ...destinationPolicyOf(config.destinations),
  allowedContentTypes:
    config.file.allowed_content_types &&
    new Set(config.file.allowed_content_types.map((ct) => contentTypeKey(ct.app_label, ct.model_name))),
  allowPrivateTargets: config.file.allow_private_targets ?? false,
  allowedDynamicPaths: new Set(config.file.dynamic_values?.allowed_paths ?? []),
  maxWebhookTimeoutSecs: config.limits.maxWebhookTimeoutSecs,
  maxBrokerTimeoutSecs: config.limits.maxBrokerTimeoutSecs,
});

/** What planning a signal's actions reads of the config: the default time-out and the limits over destinations. */
export const planningOf = (config: Config): Planning => ({
  defaultTimeoutSecs: config.limits.defaultTimeoutSecs,
  destinations: config.destinations,
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
