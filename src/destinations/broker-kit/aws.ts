import { createHash } from 'node:crypto';
import type { SettingsKey } from './settings-keys';
import type { ErrorShape } from './publish-error';
import type { Publisher } from './port';

/** The `conn_details` keys every AWS type shares. */
export const AWS_CONN = {
  region_name: { required: true, description: 'The AWS region, e.g. eu-west-1. Never looked up' },
  aws_access_key_id: {
    required: true,
    use: 'secret',
    description: 'Static credentials: the service never reads them from its environment or a metadata endpoint',
  },
  aws_secret_access_key: { required: true, use: 'secret', description: 'The secret of aws_access_key_id' },
  aws_session_token: { use: 'secret', description: 'For temporary credentials' },
  endpoint_url: { address: 'url', description: "An endpoint URL instead of AWS's (e.g. a local SQS/SNS)" },
} as const satisfies Record<string, SettingsKey>;

/** The message group of a FIFO queue or topic. */
export const MESSAGE_GROUP_ID = {
  use: 'per-message',
  description: 'The message group; required when the target is FIFO (its name ends in .fifo)',
} as const satisfies SettingsKey;

type AwsKey = keyof typeof AWS_CONN;

/** A settings reader's `conn` (./settings.ts), as far as AWS keys go. */
export interface AwsConnReader {
  required(key: AwsKey, why?: string): string;
  optional(key: AwsKey): string | undefined;
}

/**
 * Where an AWS client connects, from `conn_details` in boto3's names. Region and keys are
 * required: with them the SDK never looks elsewhere, so the service never asks a cloud
 * metadata endpoint for credentials on its own. Keys may come from dynamic values.
 */
export interface AwsConnection {
  endpoint: string | undefined;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

export const readAwsConnection = (conn: AwsConnReader): AwsConnection => {
  const why = 'is required (the service never reads credentials from the environment or a metadata endpoint)';
  const endpoint = conn.optional('endpoint_url');
  const region = conn.required('region_name', why);
  const accessKeyId = conn.required('aws_access_key_id', why);
  const secretAccessKey = conn.required('aws_secret_access_key', why);
  const sessionToken = conn.optional('aws_session_token');
  return { endpoint, region, credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } };
};

/** Clients are shared per endpoint, region and key (the secret only as a hash, even in memory). */
export const awsConnectionKey = (c: AwsConnection) =>
  [c.endpoint ?? '', c.region, c.credentials.accessKeyId, createHash('sha256').update(c.credentials.secretAccessKey).digest('hex')].join(
    ' ',
  );

/** The client options: explicit endpoint, region and static credentials, nothing discovered. */
export const awsClientOptions = (c: AwsConnection) => ({
  region: c.region,
  credentials: c.credentials,
  maxAttempts: 1,
  ...(c.endpoint ? { endpoint: c.endpoint } : {}),
});

/** SQS and SNS FIFO ids: at most 128 characters; a longer delivery id is sent as its SHA-256. */
export const fifoId = (id: string) => (id.length <= 128 ? id : createHash('sha256').update(id).digest('hex'));

/** `delivery-id`, `content-type` and (tracing on) `traceparent` as message attributes (SQS and SNS use the same shape). */
export const messageAttributes = (deliveryId: string, contentType: string, traceparent?: string) => ({
  'delivery-id': { DataType: 'String', StringValue: deliveryId },
  'content-type': { DataType: 'String', StringValue: contentType },
  ...(traceparent ? { traceparent: { DataType: 'String', StringValue: traceparent } } : {}),
});

/** AWS error codes worth naming; any other code came from whatever answered, and is not repeated. */
const AWS_CODES = new Set([
  'AccessDenied',
  'AccessDeniedException',
  'AuthorizationError',
  'AWS.SimpleQueueService.NonExistentQueue',
  'InternalError',
  'InternalFailure',
  'InvalidClientTokenId',
  'InvalidMessageContents',
  'InvalidParameter',
  'InvalidParameterValue',
  'InvalidParameterException',
  'InvalidSecurity',
  'KMSAccessDeniedException',
  'KMSDisabledException',
  'NotFound',
  'NotFoundException',
  'QueueDoesNotExist',
  'RequestExpired',
  'RequestThrottled',
  'RequestTooLargeException',
  'ResourceNotFoundException',
  'InvalidRequestContentException',
  'TooManyRequestsException',
  'ServiceException',
  'ServiceUnavailable',
  'SignatureDoesNotMatch',
  'Throttling',
  'ThrottlingException',
  'UnrecognizedClientException',
  'UnsupportedOperation',
]);

/** An AWS SDK error: the HTTP status, and the error code only if it is one AWS uses (the SDK takes it from the answer). */
export const describeAwsError = (e: ErrorShape): string | undefined => {
  if (e.$metadata === undefined || e.$fault === undefined) return undefined;
  const status = typeof e.$metadata.httpStatusCode === 'number' ? `HTTP ${e.$metadata.httpStatusCode}` : 'no HTTP status';
  return `answered ${status}${typeof e.name === 'string' && AWS_CODES.has(e.name) ? ` (${e.name})` : ''}`;
};

/**
 * The call itself was refused, for good: a 4xx answer other than throttling (429) and time-outs
 * (408). Throttling, 5xx and no answer are retried.
 */
export const refusedByAws = (e: ErrorShape): boolean => {
  const status = e.$metadata?.httpStatusCode;
  return typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429;
};

/** A JSON content type (`application/json`, `application/…+json`): AWS event services take JSON. */
export const isJsonContentType = (contentType: string) => /^application\/(.+\+)?json\b/i.test(contentType);

/** What every AWS type shares: its error words, and clients shared per connection. */
export const awsPublisher = <S extends { aws: AwsConnection }>(
  own: Pick<Publisher<S>, 'brokerType' | 'keys' | 'settings' | 'connect'> & Partial<Publisher<S>>,
): Publisher<S> => ({
  describeError: describeAwsError,
  connectionKey: (s) => awsConnectionKey(s.aws),
  ...own,
});
