import * as t from 'io-ts';
import { checked, closed, described, NonEmptyString } from '../kernel/closed';
import { oneOf } from './file';

/** The deployment settings, from the environment (docs/configuration.md). */
export const Env = closed(
  'Env',
  {},
  {
    HOST: NonEmptyString,
    PORT: checked(described(t.string, 'must be a string'), 'Port', (s) =>
      /^\d+$/.test(s) && Number(s) <= 65535 ? undefined : 'must be a port number (0-65535)',
    ),
    DATA_DIR: NonEmptyString,
    EVENT_STORE: oneOf(['sqlite', 'postgres', 'kurrentdb'] as const, 'EventStore'),
    POSTGRES_URL: checked(NonEmptyString, 'PostgresUrl', (s) =>
      /^postgres(ql)?:\/\//.test(s) ? undefined : 'must be a postgres:// connection string',
    ),
    KURRENTDB_CONNECTION_STRING: NonEmptyString,
    TEMPORAL_ADDRESS: NonEmptyString,
    TEMPORAL_NAMESPACE: NonEmptyString,
    TEMPORAL_TASK_QUEUE: NonEmptyString,
    TEMPORAL_CLI_PATH: NonEmptyString,
    TEMPORAL_DEV_SERVER_PORT: checked(described(t.string, 'must be a string'), 'Port', (s) =>
      /^\d+$/.test(s) && Number(s) > 0 && Number(s) <= 65535 ? undefined : 'must be a port number (1-65535)',
    ),
    TEMPORAL_UI_PORT: checked(described(t.string, 'must be a string'), 'Port', (s) =>
      /^\d+$/.test(s) && Number(s) > 0 && Number(s) <= 65535 ? undefined : 'must be a port number (1-65535)',
    ),
    LOG_LEVEL: oneOf(['debug', 'info', 'warn', 'error'] as const, 'LogLevel'),
    ACTION_TRIGGERS_CONFIG: NonEmptyString,
    API_KEYS_FILE: NonEmptyString,
    API_PROCESSES: checked(described(t.string, 'must be a string'), 'Count', (s) =>
      /^\d+$/.test(s) && Number(s) >= 1 && Number(s) <= 64 ? undefined : 'must be a whole number from 1 to 64',
    ),
    METRICS_PORT: checked(described(t.string, 'must be a string'), 'Port', (s) =>
      /^\d+$/.test(s) && Number(s) <= 65535 ? undefined : 'must be a port number (0-65535)',
    ),
    TEMPORAL_METRICS_ADDRESS: checked(described(t.string, 'must be a string'), 'HostPort', (s) =>
      /^[\w.:[\]-]+:\d{1,5}$/.test(s) ? undefined : 'must be host:port, e.g. 127.0.0.1:9464',
    ),
  },
);

export const ENV_KEYS = [
  'HOST',
  'PORT',
  'DATA_DIR',
  'EVENT_STORE',
  'POSTGRES_URL',
  'KURRENTDB_CONNECTION_STRING',
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_TASK_QUEUE',
  'TEMPORAL_CLI_PATH',
  'TEMPORAL_DEV_SERVER_PORT',
  'TEMPORAL_UI_PORT',
  'LOG_LEVEL',
  'ACTION_TRIGGERS_CONFIG',
  'API_KEYS_FILE',
  'API_PROCESSES',
  'METRICS_PORT',
  'TEMPORAL_METRICS_ADDRESS',
];
