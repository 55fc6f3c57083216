import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServerProcess } from '../../support/server-process';
import { tempDir } from '../../support/test-app';

/**
 * A signing secret that cannot sign stops the service's start, named by its config path and
 * never quoted: an empty key would sign with an HMAC key anyone can compute, and a secret
 * receivers' Standard Webhooks libraries decode differently would never verify.
 */
const GOOD = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const CASES: Array<{ what: string; secret: string; config: (dir: string, secret: string) => Record<string, unknown>; path: string }> = [
  { what: 'whsec_ with no key', secret: 'whsec_', config: (_d, secret) => ({ signing_secret: secret }), path: 'signing_secret' },
  {
    what: 'whsec_!!!! (not base64)',
    secret: 'whsec_!!!!',
    config: (_d, secret) => ({ signing_secrets: { orders: [{ secret: GOOD }, { secret }] } }),
    path: 'signing_secrets.orders[1].secret',
  },
  {
    what: 'a 4-byte key in a secret file',
    secret: `whsec_${Buffer.from('k3y!').toString('base64')}`,
    config: (dir, secret) => {
      writeFileSync(join(dir, 'refunds.key'), `${secret}\n`);
      return { signing_secrets: { refunds: [{ secret_file: join(dir, 'refunds.key') }] } };
    },
    path: 'signing_secrets.refunds[0].secret_file',
  },
  {
    what: 'a secret without whsec_',
    secret: 'my-webhook-secret-that-is-plenty-long',
    config: (_d, secret) => ({ signing_secret: secret }),
    path: 'signing_secret',
  },
];

test.each(CASES)(
  '$what stops the start, naming $path',
  async ({ secret, config, path }) => {
    const dir = tempDir('at-secret-start-');
    try {
      writeFileSync(join(dir, 'config.json'), JSON.stringify(config(dir, secret)));
      const started = startServerProcess({ DATA_DIR: join(dir, 'data'), ACTION_TRIGGERS_CONFIG: join(dir, 'config.json') });
      const error = await started.then(
        () => {
          throw new Error('the service started');
        },
        (e: Error) => e.message,
      );
      expect(error).toMatch(/^server exited with [1-9]/);
      expect(error).toContain(path);
      expect(error).toMatch(/whsec_ and the base64 of 24 to 64 random bytes/);
      const keyPart = secret.replace(/^whsec_/, '');
      if (keyPart.length > 0) expect(error).not.toContain(keyPart);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  30_000,
);
