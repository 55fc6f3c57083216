import * as t from 'io-ts';
import { arrayOf, checked, closed, described, NonEmptyString } from '../kernel/closed';
import type { ContentType } from '../model/triggers/codecs';
import { SCHEMA_NAME } from '../event-store/postgres-schema';
import { DESTINATION_CONFIG_KEYS } from '../destinations/registry';
import { AlertsConfig } from './alerts/config';

/** What an API key may be allowed to do. */
export const SCOPES = ['triggers:read', 'triggers:write', 'signals:write', 'metrics:read'] as const;
export type Scope = (typeof SCOPES)[number];

export const positive = (name: string) =>
  checked(described(t.number, 'must be a number'), name, (n) => (Number.isFinite(n) && n > 0 ? undefined : 'must be greater than 0'));
const wholeCount = checked(positive('Count'), 'Count', (n) => (Number.isInteger(n) ? undefined : 'must be a whole number'));
/** Milliseconds a timer can hold (Node fires one over 2^31-1 ms at once), capped at an hour. */
const upToAnHour = checked(positive('Ms'), 'Ms', (n) => (n <= 3_600_000 ? undefined : 'must be at most 3600000 (an hour)'));
export const oneOf = <T extends string>(values: readonly T[], name: string) =>
  new t.Type<T, T, unknown>(
    name,
    (u): u is T => values.includes(u as T),
    (u, c) => (values.includes(u as T) ? t.success(u as T) : t.failure(u, c, `must be one of ${values.join(', ')}`)),
    t.identity,
  );
export const ApiKey = checked(
  closed(
    'ApiKey',
    { id: NonEmptyString, scopes: arrayOf(oneOf(SCOPES, 'Scope')) },
    {
      key: NonEmptyString,
      key_sha256: checked(described(t.string, 'must be a string'), 'Sha256', (s) =>
        /^[0-9a-fA-F]{64}$/.test(s) ? undefined : 'must be 64 hex characters',
      ),
    },
  ),
  'ApiKey',
  (k) => (k.key === undefined && k.key_sha256 === undefined ? 'needs key_sha256 (or key, for local use)' : undefined),
);

const ContentTypeObject = closed('ContentType', { app_label: NonEmptyString, model_name: NonEmptyString }, {});
/**
 * `"app_label.model_name"`, or `{ "app_label", "model_name" }` when a part holds a dot (Django
 * allows `my.app`): a dotted string could be split in more than one place.
 */
const AllowedContentType = new t.Type<ContentType, ContentType, unknown>(
  'AllowedContentType',
  (u): u is ContentType => ContentTypeObject.is(u),
  (u, c) => {
    if (typeof u !== 'string') return ContentTypeObject.validate(u, c);
    const m = /^([^.\s]+)\.([^.\s]+)$/.exec(u);
    return m
      ? t.success({ app_label: m[1]!, model_name: m[2]! })
      : t.failure(u, c, 'must be app_label.model_name, or an object {app_label, model_name} when a part holds a dot');
  },
  t.identity,
);

/**
 * The config file (`ACTION_TRIGGERS_CONFIG`, default ./action-triggers.config.json), every key
 * closed: each destination kind's own (`brokers`, `webhook_url_patterns`, the signing secrets),
 * then the shared ones.
 */
export const ConfigFile = closed(
  'Config',
  {},
  {
    ...DESTINATION_CONFIG_KEYS,
    dynamic_values: closed('DynamicValues', {}, { module: NonEmptyString, allowed_paths: arrayOf(NonEmptyString) }),
    allowed_content_types: arrayOf(AllowedContentType),
    allow_private_targets: described(t.boolean, 'must be true or false'),
    limits: closed(
      'Limits',
      {},
      {
        default_timeout_secs: positive('Secs'),
        max_webhook_timeout_secs: positive('Secs'),
        max_broker_timeout_secs: positive('Secs'),
        max_body_bytes: positive('Bytes'),
      },
    ),
    retry: closed(
      'Retry',
      {},
      {
        initial_interval_secs: positive('Secs'),
        backoff_coefficient: checked(positive('Coefficient'), 'Coefficient', (n) => (n >= 1 ? undefined : 'must be at least 1')),
        max_interval_secs: positive('Secs'),
        max_attempts: positive('Count'),
      },
    ),
    api_keys: arrayOf(ApiKey),
    signals: closed(
      'Signals',
      {},
      { retention_days: positive('Days'), keep_unmatched_instances: described(t.boolean, 'must be true or false') },
    ),
    breaker: closed(
      'Breaker',
      {},
      {
        consecutive_failures: wholeCount,
        failing_for_hours: positive('Hours'),
      },
    ),
    metrics: closed('Metrics', {}, { enabled: described(t.boolean, 'must be true or false') }),
    postgres: closed(
      'Postgres',
      {},
      {
        schema: checked(NonEmptyString, 'SchemaName', (s) =>
          SCHEMA_NAME.test(s) ? undefined : 'must be a lower-case SQL name: letters, digits and _ (at most 63)',
        ),
        pool_max: checked(wholeCount, 'PoolMax', (n) => (n <= 1000 ? undefined : 'must be at most 1000')),
        connect_timeout_ms: upToAnHour,
        statement_timeout_ms: upToAnHour,
      },
    ),
    alerts: AlertsConfig,
    temporal_ui_url: checked(NonEmptyString, 'HttpUrl', (s) => (/^https?:\/\/[^\s/?#]+/i.test(s) ? undefined : 'must be an http(s) URL')),
  },
);
export type ConfigFile = t.TypeOf<typeof ConfigFile>;
export type ApiKey = t.TypeOf<typeof ApiKey>;
