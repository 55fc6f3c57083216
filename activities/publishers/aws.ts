import { createHash } from 'node:crypto';
import type { BROKER_KEYS } from './settings-keys';

/** The `conn_details` keys SQS and SNS share. */
type AwsKey = keyof typeof BROKER_KEYS.aws_sqs.conn_details & keyof typeof BROKER_KEYS.aws_sns.conn_details;

/** A settings reader's `conn` (./settings.ts), as far as AWS keys go. */
export interface AwsConnReader { required(key: AwsKey, why?: string): string; optional(key: AwsKey): string | undefined }

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
  [c.endpoint ?? '', c.region, c.credentials.accessKeyId, createHash('sha256').update(c.credentials.secretAccessKey).digest('hex')].join(' ');

/** The client options: explicit endpoint, region and static credentials, nothing discovered. */
export const awsClientOptions = (c: AwsConnection) => ({
  region: c.region, credentials: c.credentials, maxAttempts: 1, ...(c.endpoint ? { endpoint: c.endpoint } : {}),
});

/** SQS and SNS FIFO ids: at most 128 characters; a longer delivery id is sent as its SHA-256. */
export const fifoId = (id: string) => (id.length <= 128 ? id : createHash('sha256').update(id).digest('hex'));

/** `delivery-id`, `content-type` and (tracing on) `traceparent` as message attributes (SQS and SNS use the same shape). */
export const messageAttributes = (deliveryId: string, contentType: string, traceparent?: string) => ({
  'delivery-id': { DataType: 'String', StringValue: deliveryId },
  'content-type': { DataType: 'String', StringValue: contentType },
  ...(traceparent ? { traceparent: { DataType: 'String', StringValue: traceparent } } : {}),
});
