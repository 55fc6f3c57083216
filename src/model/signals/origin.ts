import type { SignalOrigin } from './signal-record';
import { logFields } from '../../kernel/log-context';
import { activeTraceparent } from '../../observability/tracing';

/** The current request's id and trace, to keep with what it stores for the relay (signal-record.ts). */
export const requestOrigin = (): SignalOrigin => {
  const requestId = logFields()?.request_id;
  const traceparent = activeTraceparent();
  return { ...(typeof requestId === 'string' ? { request_id: requestId } : {}), ...(traceparent ? { traceparent } : {}) };
};
