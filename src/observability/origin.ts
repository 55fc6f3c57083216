import type { SignalOrigin } from '../intake/signal-record';
import { logFields } from './log-context';
import { activeTraceparent } from './tracing';

/** The current request's id and trace, to keep with what it stores for the relay (intake/signal-record.ts). */
export const requestOrigin = (): SignalOrigin => {
  const requestId = logFields()?.request_id;
  const traceparent = activeTraceparent();
  return { ...(typeof requestId === 'string' ? { request_id: requestId } : {}), ...(traceparent ? { traceparent } : {}) };
};
