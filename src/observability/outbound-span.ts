import { Attributes, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { traceHeaders, tracer } from './tracing';

/** What an outbound send ends with (an activity's Attempt has this shape). */
interface Sent {
  outcome: string;
  statusCode?: number;
  errorType?: string;
}

/**
 * One outbound request or message (a webhook: CLIENT, a broker message: PRODUCER) as a span;
 * `send` gets its context as headers (`traceparent`) to pass on, so the receiver can join the
 * trace. Callers pass safe attributes only: never a path, query, header value or rendered value.
 * Tracing off, the span is a no-op and the headers are empty.
 */
export const inOutboundSpan = <A extends Sent>(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  send: (headers: Record<string, string>) => Promise<A>,
): Promise<A> =>
  tracer().startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      const sent = await send(traceHeaders());
      if (sent.statusCode !== undefined) span.setAttribute('http.response.status_code', sent.statusCode);
      if (sent.outcome !== 'delivered')
        span.setStatus({ code: SpanStatusCode.ERROR, ...(sent.errorType ? { message: sent.errorType } : {}) });
      return sent;
    } catch (e) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw e;
    } finally {
      span.end();
    }
  });

/** A webhook's safe attributes: method, scheme, host and port; a path may hold a token (many webhook URLs do). */
export const webhookAttributes = (method: string, url: string): Attributes => {
  const u = new URL(url);
  return {
    'http.request.method': method,
    'url.scheme': u.protocol.replace(':', ''),
    'server.address': u.hostname,
    'server.port': Number(u.port || (u.protocol === 'https:' ? 443 : 80)),
  };
};
