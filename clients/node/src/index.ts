/**
 * A small typed client for services that manage triggers and emit signals.
 * Signals get their id here, before the first attempt, so a retry after a lost response can
 * never start a second dispatch.
 */
import { caller, type ClientOptions } from './client/http.ts';
import { signalsApi } from './client/signals.ts';
import { triggersApi } from './client/triggers.ts';

export type * from './client/types.ts';
export type * from './client/requests.ts';
export { ApiError, RedirectRefused } from './client/http.ts';
export type { ClientOptions } from './client/http.ts';

export const createClient = (options: ClientOptions) => {
  const call = caller(options);
  return { triggers: triggersApi(call), signals: signalsApi(call) };
};

export type ActionTriggersClient = ReturnType<typeof createClient>;
