import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signature: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed
 * with the base64 part of a `whsec_…` secret (a secret without the prefix is used as raw text).
 */
export const signatureOf = (secret: string, id: string, timestampSecs: number, body: string): string => {
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSecs}.${body}`).digest('base64')}`;
};

/** During a rotation, one signature per active secret, space-separated (Standard Webhooks). */
export const signaturesOf = (secrets: readonly string[], id: string, timestampSecs: number, body: string): string =>
  secrets.map((secret) => signatureOf(secret, id, timestampSecs, body)).join(' ');
