import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signature: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed
 * with the bytes a `whsec_…` secret encodes (the config refuses any other secret at start).
 */
export const signatureOf = (secret: string, id: string, timestampSecs: number, body: string): string => {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSecs}.${body}`).digest('base64')}`;
};

/** During a rotation, one signature per active secret, space-separated (Standard Webhooks). */
export const signaturesOf = (secrets: readonly string[], id: string, timestampSecs: number, body: string): string =>
  secrets.map((secret) => signatureOf(secret, id, timestampSecs, body)).join(' ');
