/**
 * A small typed client for services that manage triggers and emit signals.
 * Signals get their id here, before the first attempt, so a retry after a lost response can
 * never start a second dispatch.
 */
import { caller, ClientOptions } from './http';
import { signalsApi } from './signals';
import { triggersApi } from './triggers';

export type * from './types';
export type * from './requests';
export { ApiError, RedirectRefused } from './http';
export type { ClientOptions } from './http';

export const createClient = (options: ClientOptions) => {
  const call = caller(options);
  return { triggers: triggersApi(call), signals: signalsApi(call) };
};

export type ActionTriggersClient = ReturnType<typeof createClient>;
