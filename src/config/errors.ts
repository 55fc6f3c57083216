import { readFileSync } from 'node:fs';
import type { FieldError } from '../kernel/field-errors';

/** A config that cannot start the service: every bad key, by path, in one message. */
export class ConfigError extends Error {
  constructor(readonly errors: FieldError[]) {
    super(`invalid configuration:\n${errors.map((e) => `  ${e.path}: ${e.message}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Why a file is not JSON, without its text: V8's message quotes the source around a bad token,
 * and these files hold API keys and secrets (the message reaches the log).
 */
const whyNotJson = (e: unknown) => {
  if (!(e instanceof SyntaxError)) return (e as Error).message;
  const where = /at position \d+(?: \(line \d+ column \d+\))?/.exec(e.message)?.[0];
  return where ? `not valid JSON ${where}` : 'not valid JSON';
};

/** A JSON file the config names; one that cannot be read or parsed is a ConfigError under `name`. */
export const readJsonFile = (path: string, name = path): unknown => {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new ConfigError([{ path: name, message: `cannot be read as JSON: ${whyNotJson(e)}` }]);
  }
};
