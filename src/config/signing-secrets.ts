import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { secretsFor, SecretsFor, signingKeysOf, SigningKeys } from '../destinations/webhook/secrets';
import type { FieldError } from '../kernel/field-errors';
import type { ConfigFile } from './file';

/** The config's `signing_secrets`, each `secret_file` read once at start (relative to the working directory). */
export const readSigningKeys = (file: ConfigFile, cwd: string): { keys: SigningKeys; errors: FieldError[] } =>
  signingKeysOf(file.signing_secrets ?? {}, (path) => readFileSync(resolve(cwd, path), 'utf8'));

/** What a webhook is signed with: its named secrets, else the global `signing_secret`. */
export const signingSecretsOf = (config: { file: ConfigFile; signingKeys: SigningKeys }): SecretsFor =>
  secretsFor(config.file.signing_secret, config.signingKeys);
