import * as t from 'io-ts';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { FieldError, toFieldErrors } from '../kernel/field-errors';
import { contentTypeKey, TriggerPolicy } from '../model/triggers/policy';
import type { RetrySettings } from '../dispatch/types';
import type { BreakerSettings } from '../model/breaker/state';
import { brokerSettingsProblems } from '../destinations/brokers/settings-problems';
import { brokerConfigProblems, brokerOverridesOf } from '../destinations/brokers/config';
import type { SigningKeys } from '../destinations/webhook/secrets';
import { readSigningKeys } from './signing-secrets';
import { signingSecretProblem } from '../destinations/webhook/secrets';
import { ApiKey, ConfigFile } from './file';
import { arrayOf } from '../kernel/closed';
import { Env, ENV_KEYS } from './env';
import type { PostgresOptions } from '../event-store/postgres';

export { SCOPES, ConfigFile } from './file';
export type { Scope } from './file';
export type { Broker } from '../destinations/brokers/config';
export { signingSecretsOf } from './signing-secrets';

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
  /** `signing_secrets`, their files read: what webhooks that name one are signed with. */
  readonly signingKeys: SigningKeys;
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

/**
 * Why a file is not JSON, without its text: V8's message quotes the source around a bad token,
 * and these files hold API keys and secrets (the message reaches the log).
 */
const whyNotJson = (e: unknown) => {
  if (!(e instanceof SyntaxError)) return (e as Error).message;
  const where = /at position \d+(?: \(line \d+ column \d+\))?/.exec(e.message)?.[0];
  return where ? `not valid JSON ${where}` : 'not valid JSON';
};

const readJsonFile = (path: string, name = path): unknown => {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new ConfigError([{ path: name, message: `cannot be read as JSON: ${whyNotJson(e)}` }]);
  }
};

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

/**
 * API_KEYS_FILE: more keys, in a file of their own (a container secret), as a JSON array shaped
 * like `api_keys`; added to the config file's. Errors are named `API_KEYS_FILE[i].<field>`; a key
 * id may not appear twice (the audit feed names a change's key by its id).
 */
const withKeysFile = (inConfig: readonly ApiKey[], path: string): ApiKey[] => {
  const decoded = arrayOf(ApiKey).decode(readJsonFile(path, 'API_KEYS_FILE'));
  if (decoded._tag === 'Left') {
    throw new ConfigError(toFieldErrors(decoded.left).map((x) => ({ ...x, path: `API_KEYS_FILE${x.path === '(body)' ? '' : x.path}` })));
  }
  const seen = new Set(inConfig.map((k) => k.id));
  const errors = decoded.right.flatMap((k, i) => {
    const repeated = seen.has(k.id);
    seen.add(k.id);
    return repeated ? [{ path: `API_KEYS_FILE[${i}].id`, message: `'${k.id}' is already the id of another key` }] : [];
  });
  if (errors.length > 0) throw new ConfigError(errors);
  return [...inConfig, ...decoded.right];
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
  const signing = readSigningKeys(file, cwd);
  errors.push(...signing.errors);
  const globalSecretProblem = file.signing_secret === undefined ? undefined : signingSecretProblem(file.signing_secret);
  if (globalSecretProblem) errors.push({ path: 'signing_secret', message: globalSecretProblem });
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
    signingKeys: signing.keys,
    metrics: {
      enabled: file.metrics?.enabled ?? true,
      workerPort: env.METRICS_PORT === undefined ? undefined : Number(env.METRICS_PORT),
      temporalBindAddress: env.TEMPORAL_METRICS_ADDRESS,
    },
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
  brokerNames: new Set(Object.keys(config.file.brokers ?? {})),
  brokerOverrides: new Map(Object.entries(config.file.brokers ?? {}).map(([name, b]) => [name, brokerOverridesOf(b)])),
  brokerTypes: new Map(Object.entries(config.file.brokers ?? {}).map(([name, b]) => [name, b.broker_type])),
  brokerSettings: (name, conn, params) => {
    const broker = Object.prototype.hasOwnProperty.call(config.file.brokers ?? {}, name) ? config.file.brokers![name] : undefined;
    return broker ? brokerSettingsProblems(broker, conn, params) : [];
  },
  allowedContentTypes:
    config.file.allowed_content_types &&
    new Set(config.file.allowed_content_types.map((ct) => contentTypeKey(ct.app_label, ct.model_name))),
  // Sticky: anchored at the start of the URL (Python's re.match), whatever alternations the pattern holds.
  webhookUrlPatterns: (config.file.webhook_url_patterns ?? []).map((p) => new RegExp(p, 'y')),
  allowPrivateTargets: config.file.allow_private_targets ?? false,
  allowedDynamicPaths: new Set(config.file.dynamic_values?.allowed_paths ?? []),
  signingSecretNames: new Set(Object.keys(config.file.signing_secrets ?? {})),
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
