/**
 * Why a publish failed, in our words. A broker's (or whatever answered in its place) error text
 * is never passed on: it may quote a rendered value, or be the answer of a host a trigger
 * pointed the worker at, and `last_error` is read by every key with `signals:read`. What is
 * kept is what the client decided on its side: a socket error code, an AMQP or gRPC reply code
 * turned into its name by a table here, an HTTP status, a Kafka error type from kafkajs' own
 * table, a Redis error's class word.
 */

/** An error whose message we wrote (a time-out, a refusal): shown as it is. */
export class PublishFailure extends Error {}

const AMQP_REPLY: Readonly<Record<number, string>> = {
  311: 'content too large', 312: 'no route', 313: 'no consumers', 320: 'connection forced', 402: 'invalid path',
  403: 'access refused', 404: 'not found (the exchange or queue does not exist)', 405: 'resource locked',
  406: 'precondition failed', 501: 'frame error', 502: 'syntax error', 503: 'command invalid', 504: 'channel error',
  505: 'unexpected frame', 506: 'resource error', 530: 'not allowed', 540: 'not implemented', 541: 'internal error',
};

const GRPC_STATUS = ['OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS',
  'PERMISSION_DENIED', 'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'UNIMPLEMENTED', 'INTERNAL',
  'UNAVAILABLE', 'DATA_LOSS', 'UNAUTHENTICATED'];

/** AWS error codes worth naming; any other code came from whatever answered, and is not repeated. */
const AWS_CODES = new Set([
  'AccessDenied', 'AccessDeniedException', 'AuthorizationError', 'AWS.SimpleQueueService.NonExistentQueue', 'InternalError',
  'InternalFailure', 'InvalidClientTokenId', 'InvalidMessageContents', 'InvalidParameter', 'InvalidParameterValue',
  'InvalidParameterException', 'InvalidSecurity', 'KMSAccessDeniedException', 'KMSDisabledException', 'NotFound',
  'NotFoundException', 'QueueDoesNotExist', 'RequestExpired', 'RequestThrottled', 'ServiceUnavailable',
  'SignatureDoesNotMatch', 'Throttling', 'ThrottlingException', 'UnrecognizedClientException', 'UnsupportedOperation',
]);

/** A word of letters, digits and `_`/`.`, short: a code, never a sentence someone wrote. */
const TOKEN = /^[A-Za-z][A-Za-z0-9_.]{0,47}$/;
const token = (v: unknown): string | undefined => (typeof v === 'string' && TOKEN.test(v) ? v : undefined);

interface Shape {
  name?: unknown; code?: unknown; type?: unknown; message?: unknown; cause?: unknown;
  $metadata?: { httpStatusCode?: unknown }; $fault?: unknown;
}

const describeOne = (e: Shape, source: string): string | undefined => {
  if (e instanceof PublishFailure) return e.message;
  // AWS SDK: the HTTP status, and the error code only if it is one AWS uses (the SDK takes it from the answer).
  if (e.$metadata !== undefined && e.$fault !== undefined) {
    const status = typeof e.$metadata.httpStatusCode === 'number' ? `HTTP ${e.$metadata.httpStatusCode}` : 'no HTTP status';
    return `${source} answered ${status}${typeof e.name === 'string' && AWS_CODES.has(e.name) ? ` (${e.name})` : ''}`;
  }
  // kafkajs: its error class and, for a protocol error, the type its own table gave the numeric code.
  if (typeof e.name === 'string' && e.name.startsWith('KafkaJS')) {
    if (e.name === 'KafkaJSNumberOfRetriesExceeded' || e.name === 'KafkaJSNonRetriableError') {
      const inner = e.cause !== undefined && e.cause !== null && typeof e.cause === 'object' ? describeOne(e.cause as Shape, source) : undefined;
      if (inner) return inner;
    }
    if (token(e.type)) return `${source} refused it: ${String(e.type)}`;
    return `${source} failed (${token(e.name) ?? 'KafkaJS error'})`;
  }
  // A socket or DNS error: Node's code (ECONNREFUSED, ENOTFOUND, ...).
  if (typeof e.code === 'string' && /^E[A-Z0-9_]{2,30}$/.test(e.code)) return `connection to ${source} failed (${e.code})`;
  // AMQP: a channel or connection closed by the server with a reply code.
  if (typeof e.code === 'number' && AMQP_REPLY[e.code] !== undefined) return `${source} refused it: ${e.code} ${AMQP_REPLY[e.code]}`;
  // gRPC (Pub/Sub): the status code by name.
  if (typeof e.code === 'number' && typeof (e as { details?: unknown }).details === 'string' && GRPC_STATUS[e.code]) {
    return `${source} answered ${GRPC_STATUS[e.code]}`;
  }
  // Redis: a reply error starts with its class (ERR, WRONGTYPE, NOAUTH, ...).
  if (e.name === 'ReplyError' && typeof e.message === 'string') {
    const word = /^[A-Z]{2,20}\b/.exec(e.message)?.[0];
    return `${source} answered with an error${word ? ` (${word})` : ''}`;
  }
  return undefined;
};

/** The reason for an attempt's `last_error`: ours, whatever the error holds. */
export const describePublishError = (e: unknown, source = 'the broker'): string => {
  if (e === null || typeof e !== 'object') return `${source} failed`;
  return describeOne(e as Shape, source) ?? `${source} failed (${token((e as Shape).name) ?? 'error'}, details not shown)`;
};
