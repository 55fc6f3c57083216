import * as t from 'io-ts';
import { arrayOf, checked, closed, described, NonEmptyString } from '../../kernel/closed';
import type { FieldError } from '../../kernel/field-errors';

/** At most this many secrets per name: the one in use and those being rotated in or out. */
export const MAX_SECRETS_PER_NAME = 4;

const isoDate = checked(described(t.string, 'must be a string'), 'IsoDate', (s) =>
  /^\d{4}-\d{2}-\d{2}T/.test(s) && Number.isFinite(Date.parse(s))
    ? undefined
    : 'must be an ISO 8601 date and time, e.g. 2026-12-31T00:00:00Z',
);

/** One secret of a name in the config's `signing_secrets`: given in the config, or read from a file (a container secret) at start. */
const SigningSecretEntry = checked(
  closed('SigningSecret', {}, { secret: NonEmptyString, secret_file: NonEmptyString, expires_at: isoDate }),
  'SigningSecret',
  (e) => ((e.secret === undefined) === (e.secret_file === undefined) ? 'needs exactly one of secret and secret_file' : undefined),
);

/** `signing_secrets`: name → its secrets, newest first; during a rotation the old one carries `expires_at`. */
export const SigningSecretsConfig = t.record(t.string, arrayOf(SigningSecretEntry, 1, MAX_SECRETS_PER_NAME));
export type SigningSecretsConfig = t.TypeOf<typeof SigningSecretsConfig>;

/** A secret as the worker signs with it; `expiresAtMs` absent: until the config says otherwise. */
export interface SigningKey {
  readonly secret: string;
  readonly expiresAtMs?: number;
}

export type SigningKeys = ReadonlyMap<string, readonly SigningKey[]>;

/** Key bytes a signing secret carries: the Standard Webhooks libraries refuse an empty key, and fewer than 24 bytes is guessable. */
const SIGNING_KEY_BYTES = { min: 24, max: 64 } as const;
const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MAKE_A_SECRET = `e.g. node -e "console.log('whsec_' + require('crypto').randomBytes(32).toString('base64'))"`;

/**
 * Why a signing secret cannot sign, never quoting it: it must be `whsec_` and the standard
 * base64 of 24 to 64 key bytes, the form receivers' Standard Webhooks libraries decode (they
 * read a secret without the prefix as base64 too, so raw text would never verify there).
 */
export const signingSecretProblem = (secret: string): string | undefined => {
  const why = (what: string) =>
    `${what}: a signing secret is whsec_ and the base64 of ${SIGNING_KEY_BYTES.min} to ${SIGNING_KEY_BYTES.max} random bytes (${MAKE_A_SECRET})`;
  if (!secret.startsWith('whsec_')) return why('does not start with whsec_');
  const encoded = secret.slice('whsec_'.length);
  if (!STANDARD_BASE64.test(encoded)) return why('is not valid base64 after whsec_');
  const bytes = Buffer.from(encoded, 'base64').length;
  if (bytes < SIGNING_KEY_BYTES.min || bytes > SIGNING_KEY_BYTES.max) return why(`holds ${bytes} key bytes`);
  return undefined;
};

/** The config's named secrets, each file read once (trailing newline dropped); a file that cannot be read, or a secret that cannot sign, is named. */
export const signingKeysOf = (
  config: SigningSecretsConfig,
  readFile: (path: string) => string,
): { keys: SigningKeys; errors: FieldError[] } => {
  const errors: FieldError[] = [];
  const keys = new Map<string, SigningKey[]>();
  for (const [name, entries] of Object.entries(config)) {
    keys.set(
      name,
      entries.map((e, i) => {
        let secret = e.secret ?? '';
        if (e.secret_file !== undefined) {
          let read = false;
          try {
            secret = readFile(e.secret_file).replace(/\r?\n$/, '');
            read = true;
          } catch (err) {
            errors.push({
              path: `signing_secrets.${name}[${i}].secret_file`,
              message: `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
            });
          }
          // This entry's own read: an empty file is named even after another entry's error.
          if (read && secret === '') errors.push({ path: `signing_secrets.${name}[${i}].secret_file`, message: 'is empty' });
          const problem = read && secret !== '' ? signingSecretProblem(secret) : undefined;
          if (problem) errors.push({ path: `signing_secrets.${name}[${i}].secret_file`, message: `holds a secret that ${problem}` });
        } else {
          const problem = signingSecretProblem(secret);
          if (problem) errors.push({ path: `signing_secrets.${name}[${i}].secret`, message: problem });
        }
        return { secret, ...(e.expires_at ? { expiresAtMs: Date.parse(e.expires_at) } : {}) };
      }),
    );
  }
  return { keys, errors };
};

/** The secrets a request is signed with now: the global one, or the webhook's named ones that have not expired. */
export type SecretsFor = (name: string | undefined, nowMs: number) => readonly string[] | { missing: string };

export const secretsFor =
  (global: string | undefined, named: SigningKeys): SecretsFor =>
  (name, nowMs) => {
    if (name === undefined) return global ? [global] : [];
    const keys = named.get(name);
    if (!keys) return { missing: `the signing secret ${name} is not in the config's signing_secrets` };
    const active = keys.filter((k) => k.expiresAtMs === undefined || k.expiresAtMs > nowMs).map((k) => k.secret);
    return active.length > 0 ? active : { missing: `every secret of the signing secret ${name} has expired` };
  };
