import { ConfigError, configFrom } from '../../src/config';
import { secretsFor, signingKeysOf } from '../../src/destinations/webhook/secrets';
import { signaturesOf, signatureOf } from '../../src/destinations/webhook/signing';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const named = new Map([
  ['orders', [{ secret: 'new' }, { secret: 'old', expiresAtMs: NOW + 1000 }]],
  ['gone', [{ secret: 'x', expiresAtMs: NOW - 1 }]],
]);

test("a webhook without a name is signed with the global secret; with one, with that name's secrets that have not expired", () => {
  const of = secretsFor('global', named);
  expect(of(undefined, NOW)).toEqual(['global']);
  expect(of('orders', NOW)).toEqual(['new', 'old']);
  expect(of('orders', NOW + 1000)).toEqual(['new']);
  expect(secretsFor(undefined, named)(undefined, NOW)).toEqual([]);
});

test('a name the config lacks, or whose secrets all expired, is named as the reason (never a secret)', () => {
  const of = secretsFor('global', named);
  expect(of('refunds', NOW)).toEqual({ missing: "the signing secret refunds is not in the config's signing_secrets" });
  expect(of('gone', NOW)).toEqual({ missing: 'every secret of the signing secret gone has expired' });
});

test('during a rotation the header holds one Standard Webhooks signature per secret, space-separated', () => {
  expect(signaturesOf(['a', 'b'], 'id-1', 1700000000, '{}')).toBe(
    `${signatureOf('a', 'id-1', 1700000000, '{}')} ${signatureOf('b', 'id-1', 1700000000, '{}')}`,
  );
});

test('the config names each bad signing_secrets entry by path: both or neither of secret and secret_file, a bad date, an unreadable file', () => {
  const problems = (signing_secrets: unknown) => {
    try {
      configFrom({ signing_secrets });
      return [];
    } catch (e) {
      return (e as ConfigError).errors.map((x) => `${x.path}: ${x.message}`);
    }
  };
  expect(problems({ a: [{ secret: 's', secret_file: '/f' }] })).toEqual([
    'signing_secrets.a[0]: needs exactly one of secret and secret_file',
  ]);
  expect(problems({ a: [{}] })).toEqual(['signing_secrets.a[0]: needs exactly one of secret and secret_file']);
  expect(problems({ a: [{ secret: 's', expires_at: 'tomorrow' }] })).toEqual([
    'signing_secrets.a[0].expires_at: must be an ISO 8601 date and time, e.g. 2026-12-31T00:00:00Z',
  ]);
  expect(problems({ a: [] })[0]).toMatch(/^signing_secrets\.a: /);
  expect(problems({ a: [{ secret_file: '/no/such/file' }] })).toEqual(['signing_secrets.a[0].secret_file: cannot be read (ENOENT)']);
});

test('a secret file is read once, without its trailing newline', () => {
  const { keys, errors } = signingKeysOf({ a: [{ secret_file: 'f', expires_at: '2026-12-31T00:00:00Z' }] }, () => 'whsec_abc\n');
  expect(errors).toEqual([]);
  expect(keys.get('a')).toEqual([{ secret: 'whsec_abc', expiresAtMs: Date.parse('2026-12-31T00:00:00Z') }]);
});

test('an empty secret file is named, also after another entry could not be read', () => {
  const files: Record<string, string> = { empty: '\n', good: 'whsec_abc' };
  const read = (path: string) => {
    const text = files[path];
    if (text === undefined) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
    return text;
  };
  const { errors } = signingKeysOf({ a: [{ secret_file: 'missing' }, { secret_file: 'empty' }], b: [{ secret_file: 'good' }] }, read);
  expect(errors).toEqual([
    { path: 'signing_secrets.a[0].secret_file', message: 'cannot be read (ENOENT)' },
    { path: 'signing_secrets.a[1].secret_file', message: 'is empty' },
  ]);
});
