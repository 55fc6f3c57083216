import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closed } from '../../src/kernel/closed';
import { toFieldErrors } from '../../src/kernel/field-errors';
import { ALERT_TYPES } from '../../src/model/alerts/alert';
import { AlertsConfig } from '../../src/config/alerts/config';
import { alertsSettingsOf } from '../../src/config/alerts/settings';

/** The `alerts` section as the config file holds it, so paths start at `alerts`. */
const File = closed('Config', {}, { alerts: AlertsConfig });
const errorsOf = (alerts: unknown) => {
  const result = File.decode({ alerts });
  return result._tag === 'Left' ? toFieldErrors(result.left) : [];
};
const decoded = (alerts: unknown): AlertsConfig => {
  const result = File.decode({ alerts });
  if (result._tag === 'Left') throw new Error(JSON.stringify(toFieldErrors(result.left)));
  return result.right.alerts!;
};

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const webhook = { name: 'ops', type: 'webhook', url: 'https://ops.example.com/hooks/at', secret: SECRET };
const slack = { name: 'team-slack', type: 'slack', url: 'https://hooks.slack.com/services/T/B/X' };
const smtp = { host: 'smtp.example.com', username: 'alerts', password: 'pw' };
const email = { name: 'oncall-mail', type: 'email', smtp, from: 'action-triggers <alerts@example.com>', to: ['oncall@example.com'] };
const readFile = (file: string) => readFileSync(file, 'utf8');

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'at-alerts-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

test('a valid section gives its settings, defaults filled in and files read', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'smtp'), 'from-file\n');
  const config = decoded({
    admin_url: 'https://at.example.com/admin/',
    sinks: [
      { ...webhook, events: ['action.failing', 'trigger.deactivated'], max_per_minute: 10 },
      slack,
      { ...email, smtp: { host: 'smtp.example.com', username: 'alerts', password_file: join(dir, 'smtp') } },
      { ...email, name: 'tls-mail', smtp: { host: 'smtp.example.com', secure: true } },
    ],
  });
  const { settings, errors } = alertsSettingsOf(config, readFile);
  expect(errors).toEqual([]);
  expect(settings).toMatchObject({ adminUrl: 'https://at.example.com/admin/', failingAtPercent: [50, 90], backlogThreshold: 1000 });
  const [ops, team, oncall, tls] = settings.sinks;
  expect(ops).toEqual({
    name: 'ops',
    type: 'webhook',
    url: webhook.url,
    secret: SECRET,
    events: new Set(['action.failing', 'trigger.deactivated']),
    maxPerMinute: 10,
  });
  expect(team).toEqual({ ...slack, events: new Set(ALERT_TYPES), maxPerMinute: 6 });
  expect(oncall).toMatchObject({
    smtp: { host: 'smtp.example.com', port: 587, secure: false, starttls: true, auth: { user: 'alerts', pass: 'from-file' } },
    from: email.from,
    to: email.to,
  });
  expect(tls).toMatchObject({ smtp: { port: 465, secure: true, starttls: false } });
  expect(tls && 'smtp' in tls && tls.smtp.auth).toBeUndefined();
});

test('no section: no sinks, and the documented defaults', () => {
  expect(alertsSettingsOf(undefined, readFile)).toEqual({
    settings: { failingAtPercent: [50, 90], backlogThreshold: 1000, sinks: [] },
    errors: [],
  });
});

test('an unknown event type is named, with the closest type when it is near', () => {
  expect(errorsOf({ sinks: [{ ...slack, events: ['action.failing', 'action.fialing', 'paged'] }] })).toEqual([
    { path: 'alerts.sinks[0].events[1]', message: 'is not an alert type; did you mean action.failing?' },
    { path: 'alerts.sinks[0].events[2]', message: `must be one of ${ALERT_TYPES.join(', ')}` },
  ]);
  expect(errorsOf({ sinks: [{ ...slack, events: [] }] })).toEqual([{ path: 'alerts.sinks[0].events', message: 'must not be empty' }]);
});

test('a repeated sink name is named at the repeat', () => {
  expect(errorsOf({ sinks: [webhook, { ...slack, name: 'ops' }, { ...email, name: 'ops' }] })).toEqual([
    { path: 'alerts.sinks[1].name', message: 'repeats the name of alerts.sinks[0]' },
    { path: 'alerts.sinks[2].name', message: 'repeats the name of alerts.sinks[0]' },
  ]);
});

test('a webhook sink takes exactly one of secret and secret_file', () => {
  expect(errorsOf({ sinks: [{ ...webhook, secret_file: '/run/secrets/ops' }] })).toEqual([
    { path: 'alerts.sinks[0].secret_file', message: 'is not allowed with secret: give one of them' },
  ]);
  const { secret: _secret, ...unsigned } = webhook;
  expect(errorsOf({ sinks: [unsigned] })).toEqual([{ path: 'alerts.sinks[0]', message: 'needs secret or secret_file' }]);
});

test('a webhook sink secret must sign as a webhook signing secret does', () => {
  const errors = errorsOf({
    sinks: [
      { ...webhook, name: 'a', secret: 'not-a-secret' },
      { ...webhook, name: 'b', secret: 'whsec_' },
      { ...webhook, name: 'c', secret: 'whsec_!!!' },
    ],
  });
  expect(errors).toEqual([
    { path: 'alerts.sinks[0].secret', message: expect.stringContaining('does not start with whsec_') },
    { path: 'alerts.sinks[1].secret', message: expect.stringContaining('holds 0 key bytes') },
    { path: 'alerts.sinks[2].secret', message: expect.stringContaining('is not valid base64 after whsec_') },
  ]);
  // The message explains, never quotes the secret.
  expect(JSON.stringify(errors)).not.toContain('not-a-secret');
});

test('an email sink needs recipients, a real port and its credentials together', () => {
  const { to: _to, ...noTo } = email;
  expect(errorsOf({ sinks: [noTo, { ...email, name: 'b', to: [] }, { ...email, name: 'c', to: ['nobody'] }] })).toEqual([
    { path: 'alerts.sinks[0].to', message: 'is required' },
    { path: 'alerts.sinks[1].to', message: 'must not be empty' },
    { path: 'alerts.sinks[2].to[0]', message: expect.stringContaining('must be one email address') },
  ]);
  const withSmtp = (i: number, s: object) => ({ ...email, name: `m${i}`, smtp: { host: 'smtp.example.com', ...s } });
  expect(
    errorsOf({
      sinks: [
        withSmtp(0, { port: 70000 }),
        withSmtp(1, { port: '587' }),
        withSmtp(2, { username: 'alerts' }),
        withSmtp(3, { password: 'pw' }),
        withSmtp(4, { username: 'a', password: 'pw', password_file: '/run/secrets/smtp' }),
        withSmtp(5, { secure: true, starttls: true }),
      ],
    }),
  ).toEqual([
    { path: 'alerts.sinks[0].smtp.port', message: 'must be a whole number from 1 to 65535' },
    { path: 'alerts.sinks[1].smtp.port', message: 'must be a number' },
    { path: 'alerts.sinks[2].smtp', message: 'needs password or password_file with username' },
    { path: 'alerts.sinks[3].smtp', message: 'needs username with password or password_file' },
    { path: 'alerts.sinks[4].smtp.password_file', message: 'is not allowed with password: give one of them' },
    { path: 'alerts.sinks[5].smtp.starttls', message: 'is not allowed with secure: true' },
  ]);
});

test('a file the section names must be there, not empty, and hold what it should', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'empty'), '\n');
  writeFileSync(join(dir, 'bad-secret'), 'whsec_\n');
  const config = decoded({
    sinks: [
      { ...email, smtp: { host: 'smtp.example.com', username: 'alerts', password_file: join(dir, 'missing') } },
      { ...email, name: 'b', smtp: { host: 'smtp.example.com', username: 'alerts', password_file: join(dir, 'empty') } },
      { name: 'c', type: 'webhook', url: webhook.url, secret_file: join(dir, 'bad-secret') },
    ],
  });
  expect(alertsSettingsOf(config, readFile).errors).toEqual([
    { path: 'alerts.sinks[0].smtp.password_file', message: `cannot read ${join(dir, 'missing')} (ENOENT)` },
    { path: 'alerts.sinks[1].smtp.password_file', message: `${join(dir, 'empty')} is empty` },
    { path: 'alerts.sinks[2].secret_file', message: expect.stringContaining('holds a secret that holds 0 key bytes') },
  ]);
});

test('the section and each sink name their other bad fields', () => {
  expect(
    errorsOf({
      admin_url: 'ftp://at.example.com/',
      failing_at_percent: [90, 50, 100],
      backlog_threshold: 0,
      sinks: [
        { name: 'Ops!', type: 'pager', url: 'x' },
        { ...slack, url: 'https://user:pw@hooks.example.com/x', max_per_minute: 0, colour: 'red' },
      ],
    }),
  ).toEqual([
    { path: 'alerts.admin_url', message: 'must be an absolute http(s) URL' },
    { path: 'alerts.failing_at_percent[2]', message: 'must be a whole number from 1 to 99' },
    { path: 'alerts.backlog_threshold', message: 'must be a whole number of at least 1' },
    { path: 'alerts.sinks[0].type', message: 'must be one of webhook, slack, email' },
    { path: 'alerts.sinks[1].url', message: 'must not contain credentials' },
    { path: 'alerts.sinks[1].max_per_minute', message: 'must be a whole number of at least 1' },
    { path: 'alerts.sinks[1].colour', message: 'is not a known field' },
  ]);
  expect(errorsOf({ failing_at_percent: [90, 50] })).toEqual([
    { path: 'alerts.failing_at_percent', message: 'must be in ascending order, each percent once' },
  ]);
});

test('an SMTP password given as a dynamic value is kept by its path, and must be allow-listed', () => {
  const config = decoded({
    sinks: [{ ...email, smtp: { host: 'smtp.example.com', username: 'alerts', password: '{{ env.SMTP_PASSWORD }}' } }],
  });
  const allowed = alertsSettingsOf(config, readFile, ['env.SMTP_PASSWORD']);
  expect(allowed.errors).toEqual([]);
  expect(allowed.settings.sinks[0]).toMatchObject({ smtp: { auth: { user: 'alerts', passFrom: 'env.SMTP_PASSWORD' } } });
  expect(JSON.stringify(allowed.settings)).not.toContain('{{');
  expect(alertsSettingsOf(config, readFile).errors).toEqual([
    {
      path: 'alerts.sinks[0].smtp.password',
      message: 'names the dynamic value env.SMTP_PASSWORD, which is not on dynamic_values.allowed_paths',
    },
  ]);
});
