import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { breakerSettingsOf, ConfigError, configFrom, loadConfig, policyOf } from '../../src/config';

/** Region and static keys: what an SQS or SNS broker needs besides its target (values never used here). */
const AWS_KEYS = { region_name: 'eu-west-1', aws_access_key_id: 'AKIDEXAMPLE', aws_secret_access_key: 'example' };
const errorsOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigError) return e.errors;
    throw e;
  }
  return [];
};

const dirs: string[] = [];
const tempConfigDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'at-config-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

test('no file and no env gives the documented defaults', () => {
  const dir = tempConfigDir();
  const c = loadConfig({}, dir);
  expect(c).toMatchObject({
    host: '127.0.0.1',
    port: 8080,
    dataDir: join(dir, 'data'),
    eventStore: 'sqlite',
    apiProcesses: 1,
    limits: { defaultTimeoutSecs: 10, maxWebhookTimeoutSecs: 30, maxBrokerTimeoutSecs: 30, maxBodyBytes: 1048576 },
  });
});

test('a bad file names every bad key', () => {
  const errors = errorsOf(() =>
    configFrom({
      brokers: { q: { broker_type: 'zeromq' }, k: { broker_type: 'kafka' }, r: { broker_type: 'rabbitmq', params: { queue: 1 } } },
      webhook_url_patterns: ['(unclosed'],
      limits: { default_timeout_secs: -1 },
      retry: { backoff_coefficient: 0.5 },
      api_keys: [
        { id: 'a', key: 'k', scopes: ['triggers:admin'] },
        { id: 'b', scopes: ['triggers:read'] },
      ],
      colour: 'red',
    }),
  );
  expect(errors.map((e) => e.path)).toEqual(
    expect.arrayContaining([
      'brokers.q.broker_type',
      'brokers.r.params.queue',
      'webhook_url_patterns[0]',
      'limits.default_timeout_secs',
      'retry.backoff_coefficient',
      'api_keys[0].scopes[0]',
      'api_keys[1]',
      'colour',
    ]),
  );
});

test('bad environment values are named', () => {
  const errors = errorsOf(() => loadConfig({ PORT: 'eighty', EVENT_STORE: 'mysql', LOG_LEVEL: 'loud', API_PROCESSES: '65' }, tmpdir()));
  expect(errors.map((e) => e.path).sort()).toEqual(['env.API_PROCESSES', 'env.EVENT_STORE', 'env.LOG_LEVEL', 'env.PORT']);
  expect(loadConfig({ API_PROCESSES: '2' }, tmpdir()).apiProcesses).toBe(2);
  expect(errorsOf(() => loadConfig({ EVENT_STORE: 'kurrentdb' }, tmpdir())).map((e) => e.path)).toEqual([
    'env.KURRENTDB_CONNECTION_STRING',
  ]);
});

test("EVENT_STORE=postgres needs POSTGRES_URL; the file's postgres settings are checked and default", () => {
  expect(errorsOf(() => loadConfig({ EVENT_STORE: 'postgres' }, tmpdir())).map((e) => e.path)).toEqual(['env.POSTGRES_URL']);
  expect(errorsOf(() => loadConfig({ EVENT_STORE: 'postgres', POSTGRES_URL: 'mysql://x' }, tmpdir())).map((e) => e.path)).toEqual([
    'env.POSTGRES_URL',
  ]);
  const url = 'postgres://app:secret@db:5432/events';
  expect(loadConfig({ EVENT_STORE: 'postgres', POSTGRES_URL: url }, tempConfigDir()).postgres).toEqual({
    url,
    schema: 'action_triggers',
    poolMax: 10,
    connectTimeoutMs: 5000,
    statementTimeoutMs: 15_000,
  });
  const dir = tempConfigDir();
  writeFileSync(
    join(dir, 'c.json'),
    JSON.stringify({ postgres: { schema: 'Events; DROP TABLE x', pool_max: 2.5, connect_timeout_ms: 0, statement_timeout_ms: 500 } }),
  );
  expect(
    errorsOf(() => loadConfig({ ACTION_TRIGGERS_CONFIG: 'c.json', EVENT_STORE: 'postgres', POSTGRES_URL: url }, dir))
      .map((e) => e.path)
      .sort(),
  ).toEqual(['postgres.connect_timeout_ms', 'postgres.pool_max', 'postgres.schema']);
  // Not the store in use: no connection settings at all.
  expect(loadConfig({ POSTGRES_URL: url }, tempConfigDir()).postgres).toBeUndefined();
});

test('the file is read from ACTION_TRIGGERS_CONFIG; unreadable JSON is an error naming the file', () => {
  const dir = tempConfigDir();
  writeFileSync(join(dir, 'c.json'), JSON.stringify({ brokers: { orders: { broker_type: 'rabbitmq' } } }));
  expect(Object.keys(loadConfig({ ACTION_TRIGGERS_CONFIG: 'c.json' }, dir).file.brokers ?? {})).toEqual(['orders']);
  writeFileSync(join(dir, 'bad.json'), '{ nope');
  expect(errorsOf(() => loadConfig({ ACTION_TRIGGERS_CONFIG: 'bad.json' }, dir))[0]?.path).toBe(join(dir, 'bad.json'));
});

test('the file read is named; a file ACTION_TRIGGERS_CONFIG names that is not there is an error, not the defaults', () => {
  const dir = tempConfigDir();
  writeFileSync(join(dir, 'c.json'), '{}');
  expect(loadConfig({ ACTION_TRIGGERS_CONFIG: 'c.json' }, dir).configFile).toBe(join(dir, 'c.json'));
  expect(loadConfig({}, dir).configFile).toBeUndefined(); // no ./action-triggers.config.json: defaults
  expect(errorsOf(() => loadConfig({ ACTION_TRIGGERS_CONFIG: 'c.jsn' }, dir))).toEqual([
    { path: 'env.ACTION_TRIGGERS_CONFIG', message: `names ${join(dir, 'c.jsn')}, which does not exist` },
  ]);
});

test('trigger_overrides: no conn_details key and any parameters key but addresses by default; lists replace the defaults', () => {
  const c = configFrom({
    brokers: {
      plain: { broker_type: 'rabbitmq' },
      queues: { broker_type: 'aws_sqs', conn_details: AWS_KEYS, params: { queue_name: 'q' } },
      open: {
        broker_type: 'rabbitmq',
        params: { queue: 'q' },
        trigger_overrides: { conn_details: ['vhost'], parameters: ['routing_key'] },
      },
    },
  });
  const overrides = policyOf(c).brokerOverrides;
  expect(overrides?.get('plain')).toEqual({ connDetails: new Set(), parameters: undefined, addressParameters: new Set() });
  expect(overrides?.get('queues')).toEqual({ connDetails: new Set(), parameters: undefined, addressParameters: new Set(['queue_url']) });
  expect(overrides?.get('open')).toEqual({
    connDetails: new Set(['vhost']),
    parameters: new Set(['routing_key']),
    addressParameters: new Set(),
  });
  // A key triggers may not set must be in the config: an SNS broker without its topic does not start.
  const sns = errorsOf(() => configFrom({ brokers: { alerts: { broker_type: 'aws_sns', conn_details: AWS_KEYS } } }));
  expect(sns.map((e) => e.path)).toEqual(['brokers.alerts.params.topic_arn']);
  const errors = errorsOf(() =>
    configFrom({ brokers: { b: { broker_type: 'rabbitmq', trigger_overrides: { conn_details: 'url', hosts: [] } } } }),
  );
  expect(errors.map((e) => e.path).sort()).toEqual(['brokers.b.trigger_overrides.conn_details', 'brokers.b.trigger_overrides.hosts']);
});

test('webhook_url_patterns compile anchored at the start of the URL, not at its end', () => {
  const [p] = policyOf(configFrom({ webhook_url_patterns: ['https://example\\.com/'] })).webhookUrlPatterns;
  expect(p?.sticky).toBe(true);
  expect(policyOf(configFrom({})).allowPrivateTargets).toBe(false);
});

test('breaker: defaults 100 consecutive failures and 120 hours; fractional hours allowed; bad values named by path', () => {
  expect(breakerSettingsOf(configFrom({}))).toEqual({ consecutiveFailures: 100, failingForMs: 120 * 3_600_000 });
  expect(breakerSettingsOf(configFrom({ breaker: { consecutive_failures: 3, failing_for_hours: 0.001 } }))).toEqual({
    consecutiveFailures: 3,
    failingForMs: 3600,
  });
  const errors = errorsOf(() => configFrom({ breaker: { consecutive_failures: 2.5, failing_for_hours: 0, after: 1 } }));
  expect(errors.map((e) => e.path).sort()).toEqual(['breaker.after', 'breaker.consecutive_failures', 'breaker.failing_for_hours']);
});

test("temporal_ui_url: an http(s) URL for the admin's workflow links; anything else is named", () => {
  expect(configFrom({ temporal_ui_url: 'https://temporal.example.com/ui' }).file.temporal_ui_url).toBe('https://temporal.example.com/ui');
  for (const bad of ['javascript:alert(1)', 'ftp://x', '//x', '', 'http://', 5]) {
    expect(errorsOf(() => configFrom({ temporal_ui_url: bad })).map((e) => e.path)).toEqual(['temporal_ui_url']);
  }
});

test("API_KEYS_FILE adds the keys of a file of their own (a container secret) to the config file's; its errors are named by index", () => {
  const dir = tempConfigDir();
  const sha = 'a'.repeat(64);
  writeFileSync(
    join(dir, 'action-triggers.config.json'),
    JSON.stringify({ api_keys: [{ id: 'ops', key_sha256: sha, scopes: ['triggers:read'] }] }),
  );
  writeFileSync(join(dir, 'keys.json'), JSON.stringify([{ id: 'ci', key_sha256: 'b'.repeat(64), scopes: ['signals:write'] }]));
  expect(loadConfig({ API_KEYS_FILE: 'keys.json' }, dir).file.api_keys?.map((k) => k.id)).toEqual(['ops', 'ci']);

  writeFileSync(
    join(dir, 'keys.json'),
    JSON.stringify([
      { id: 'x', key_sha256: 'zz', scopes: ['triggers:read', 'triggers:admin'] },
      { id: 'ops', key: 'k', scopes: [] },
    ]),
  );
  expect(errorsOf(() => loadConfig({ API_KEYS_FILE: 'keys.json' }, dir))).toEqual(
    expect.arrayContaining([
      { path: 'API_KEYS_FILE[0].scopes[1]', message: expect.stringMatching(/^must be one of/) },
      { path: 'API_KEYS_FILE[0].key_sha256', message: 'must be 64 hex characters' },
    ]),
  );
  writeFileSync(join(dir, 'keys.json'), JSON.stringify([{ id: 'ops', key: 'k', scopes: [] }]));
  expect(errorsOf(() => loadConfig({ API_KEYS_FILE: 'keys.json' }, dir))).toEqual([
    { path: 'API_KEYS_FILE[0].id', message: "'ops' is already the id of another key" },
  ]);
  writeFileSync(join(dir, 'keys.json'), '{"id": "ops"}');
  expect(errorsOf(() => loadConfig({ API_KEYS_FILE: 'keys.json' }, dir))).toEqual([{ path: 'API_KEYS_FILE', message: 'must be an array' }]);
  expect(errorsOf(() => loadConfig({ API_KEYS_FILE: 'missing.json' }, dir))).toEqual([
    { path: 'API_KEYS_FILE', message: expect.stringMatching(/^cannot be read as JSON/) },
  ]);
});

test('a file that is not JSON is named with where it breaks, never with its text (it holds keys)', () => {
  const dir = tempConfigDir();
  for (const text of ['[{"id": "ops", "key": the-secret-key}]', '{"api_keys": [{"id": "ops", "key": "the-secret-key" "scopes": []}]}']) {
    writeFileSync(join(dir, 'keys.json'), text);
    writeFileSync(join(dir, 'action-triggers.config.json'), text);
    for (const env of [{ API_KEYS_FILE: 'keys.json' }, {}]) {
      const errors = errorsOf(() => loadConfig(env, dir));
      // Both files are named when both are set: one start shows every problem.
      expect(errors).toHaveLength(env.API_KEYS_FILE ? 2 : 1);
      for (const error of errors) expect(error.message).toMatch(/^cannot be read as JSON: not valid JSON/);
      expect(JSON.stringify(errors)).not.toContain('the-secret-key');
    }
  }
});

test('one start names every problem: the environment, unknown keys, a bad secret and the checks across keys', () => {
  const dir = tempConfigDir();
  const config = { alow_private_targets: true, signing_secret: 'whsec_', limits: { default_timeout_secs: 40 } };
  writeFileSync(join(dir, 'action-triggers.config.json'), JSON.stringify(config));
  const paths = errorsOf(() => loadConfig({ PORT: 'eighty', EVENT_STORE: 'postgres' }, dir)).map((e) => e.path);
  expect(paths.sort()).toEqual(['alow_private_targets', 'env.PORT', 'env.POSTGRES_URL', 'limits.default_timeout_secs', 'signing_secret']);
});
