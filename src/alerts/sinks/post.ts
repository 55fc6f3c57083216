/** The HTTP part of the webhook and Slack sinks: one POST, and what its answer means. */
import { Agent, Dispatcher, request } from 'undici';
import { isRetryableStatus } from '../../dispatch/retry-schedule';
import { SinkError } from '../../model/alerts/alert';
import { retryAfterMs } from '../../destinations/registry';

export const SINK_USER_AGENT = 'action-triggers/0.1 (+alerts)';
/** For the connection, the answer's headers, and its body each. */
export const POST_TIMEOUT_MS = 10_000;
/** A `Retry-After` further away is read as this: an alert is stale by then anyway. */
export const MAX_RETRY_AFTER_MS = 3_600_000;
/** Enough of an error answer to say why (Slack answers `invalid_payload`, `no_service`); the rest is never read. */
const MAX_ANSWER_BYTES = 4096;
const ANSWER_SHOWN = 200;

/** An HTTP client of one sink: its own connections, closed with it. No SSRF guard: the operator chose the URL. */
export const openHttp = () => {
  const dispatcher = new Agent({ keepAliveTimeout: 10_000, connect: { timeout: POST_TIMEOUT_MS } });
  return { dispatcher, close: () => dispatcher.close() };
};

/**
 * What an answer other than 2xx means, decided here alone: a redirect is never followed (the
 * body would go to a place the config does not name); 408, 425, 429 and 5xx are worth another
 * try, after `Retry-After` when given (capped); any other 4xx will refuse the same message again.
 */
export const statusError = (status: number, retryAfter: string | string[] | undefined, answer: string, now = Date.now()): SinkError => {
  const said = answer === '' ? '' : `: ${answer}`;
  if (status >= 300 && status < 400) return new SinkError(`HTTP ${status}: redirects are not followed; configure the final URL`, false);
  if (!isRetryableStatus(status)) return new SinkError(`HTTP ${status}${said}`, false);
  const wait = retryAfterMs(retryAfter, now);
  return new SinkError(`HTTP ${status}${said}`, true, wait === undefined ? undefined : Math.min(wait, MAX_RETRY_AFTER_MS));
};

/** At most `MAX_ANSWER_BYTES` of the body, then the stream is dropped: a huge or endless answer costs nothing. */
const answerOf = async (body: Dispatcher.ResponseData['body']): Promise<string> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= MAX_ANSWER_BYTES) break;
  }
  const text = Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8');
  // One line, no control characters: it ends up in a log line.
  return text
    .replace(/\p{Cc}+/gu, ' ')
    .trim()
    .slice(0, ANSWER_SHOWN);
};

export interface JsonPost {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** POSTs a JSON body: resolves on 2xx, else rejects with a SinkError (no URL in its message: a Slack URL is a secret). */
export const postJson = async (dispatcher: Dispatcher, post: JsonPost, signal: AbortSignal): Promise<void> => {
  const timeout = AbortSignal.timeout(POST_TIMEOUT_MS);
  let res: Dispatcher.ResponseData;
  try {
    res = await request(post.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': SINK_USER_AGENT, ...post.headers },
      body: post.body,
      dispatcher,
      signal: AbortSignal.any([timeout, signal]),
      headersTimeout: POST_TIMEOUT_MS,
      bodyTimeout: POST_TIMEOUT_MS,
    });
  } catch (e) {
    const why = signal.aborted ? 'cancelled' : timeout.aborted ? `no answer within ${POST_TIMEOUT_MS / 1000}s` : (e as Error).message;
    throw new SinkError(`request failed: ${why}`, true);
  }
  if (res.statusCode >= 200 && res.statusCode < 300) {
    await res.body.dump({ limit: MAX_ANSWER_BYTES }).catch(() => undefined);
    return;
  }
  const answer = await answerOf(res.body).catch(() => '');
  throw statusError(res.statusCode, res.headers['retry-after'], answer);
};
