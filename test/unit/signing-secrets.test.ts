import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigError, configFrom } from '../../src/config';
import { secretsFor, signingKeysOf } from '../../src/destinations/webhook/secrets';
import { signaturesOf, signatureOf } from '../../src/destinations/webhook/signing';

/** A valid secret: whsec_ and the base64 of 32 bytes. */
const key = (fill: string) => `whsec_${Buffer.alloc(32, fill).toString('base64')}`;
const GOOD = key('g');

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
  const [a, b] = [key('a'), key('b')];
  expect(signaturesOf([a, b], 'id-1', 1700000000, '{}')).toBe(
    `${signatureOf(a, 'id-1', 1700000000, '{}')} ${signatureOf(b, 'id-1', 1700000000, '{}')}`,
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
  expect(problems({ a: [{ secret: GOOD, secret_file: '/f' }] })).toEqual([
    'signing_secrets.a[0]: needs exactly one of secret and secret_file',
  ]);
  expect(problems({ a: [{}] })).toEqual(['signing_secrets.a[0]: needs exactly one of secret and secret_file']);
  expect(problems({ a: [{ secret: GOOD, expires_at: 'tomorrow' }] })).toEqual([
    'signing_secrets.a[0].expires_at: must be an ISO 8601 date and time, e.g. 2026-12-31T00:00:00Z',
  ]);
  expect(problems({ a: [] })[0]).toMatch(/^signing_secrets\.a: /);
  expect(problems({ a: [{ secret_file: '/no/such/file' }] })).toEqual(['signing_secrets.a[0].secret_file: cannot be read (ENOENT)']);
});

test('a secret file is read once, without its trailing newline', () => {
  const { keys, errors } = signingKeysOf({ a: [{ secret_file: 'f', expires_at: '2026-12-31T00:00:00Z' }] }, () => `${GOOD}\n`);
  expect(errors).toEqual([]);
  expect(keys.get('a')).toEqual([{ secret: GOOD, expiresAtMs: Date.parse('2026-12-31T00:00:00Z') }]);
});

test('an empty secret file is named, also after another entry could not be read', () => {
  const files: Record<string, string> = { empty: '\n', good: GOOD };
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

describe('a secret that cannot sign stops the start, named by its path and never quoted', () => {
  const problems = (config: Record<string, unknown>) => {
    try {
      configFrom(config);
      return [];
    } catch (e) {
      return (e as ConfigError).errors.map((x) => `${x.path}: ${x.message}`);
    }
  };
  const BAD: Array<[string, string, RegExp]> = [
    ['whsec_', 'an empty key', /holds 0 key bytes/],
    ['whsec_!!!!', 'undecodable base64', /is not valid base64 after whsec_/],
    [`whsec_${Buffer.from('abcd').toString('base64')}`, 'a 4-byte key', /holds 4 key bytes/],
    [`whsec_${Buffer.alloc(65, 1).toString('base64')}`, 'a 65-byte key', /holds 65 key bytes/],
    [`whsec_${Buffer.alloc(32, 7).toString('base64url')}_`, 'base64url', /is not valid base64 after whsec_/],
    [Buffer.alloc(32, 7).toString('base64'), 'no whsec_ prefix', /does not start with whsec_/],
    ['correct horse battery staple, long enough', 'raw text', /does not start with whsec_/],
  ];
  test.each(BAD)('%s (%s): global, named literal and secret file', (secret, _what, why) => {
    const file = join(mkdtempSync(join(tmpdir(), 'at-secret-')), 'refunds.key');
    writeFileSync(file, `${secret}\n`);
    const found = problems({
      signing_secret: secret,
      signing_secrets: { orders: [{ secret: GOOD }, { secret }], refunds: [{ secret_file: file }] },
    });
    rmSync(dirname(file), { recursive: true });
    expect(found.map((f) => f.split(':')[0])).toEqual([
      'signing_secrets.orders[1].secret',
      'signing_secrets.refunds[0].secret_file',
      'signing_secret',
    ]);
    for (const f of found) expect(f).toMatch(why);
    for (const f of found) if (secret.length > 6) expect(f).not.toContain(secret.slice(6));
  });
  test('24 and 64 key bytes, padded or not, sign', () => {
    for (const n of [24, 32, 33, 64]) {
      const secret = `whsec_${Buffer.alloc(n, 3).toString('base64')}`;
      expect(problems({ signing_secret: secret, signing_secrets: { a: [{ secret }] } })).toEqual([]);
    }
  });
});
