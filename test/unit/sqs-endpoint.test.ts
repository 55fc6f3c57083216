import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { sqsClientOptions } from '../../src/destinations/sqs/publisher';

/**
 * Where the SDK would send an SQS request, resolved by the SDK itself and stopped before any
 * byte leaves: a middleware at the last step reads the request's host and throws.
 */
const hostOf = async (endpoint: string | undefined, queueUrl: string) => {
  const client = new SQSClient(
    sqsClientOptions({ endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'example' } }),
  );
  client.middlewareStack.add(
    () => async (args) => {
      throw Object.assign(new Error('stopped'), { host: (args.request as { hostname: string; port?: number }).hostname });
    },
    { step: 'finalizeRequest', priority: 'low' },
  );
  try {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'x' }));
    throw new Error('sent');
  } catch (e) {
    return (e as { host?: string }).host;
  } finally {
    client.destroy();
  }
};

test("an SQS queue URL never chooses the host: without endpoint_url the request goes to AWS's regional endpoint", async () => {
  expect(await hostOf(undefined, 'http://127.0.0.1:9/123456789012/q')).toBe('sqs.eu-west-1.amazonaws.com');
  expect(await hostOf(undefined, 'http://169.254.169.254/latest/meta-data/')).toBe('sqs.eu-west-1.amazonaws.com');
  expect(await hostOf('http://127.0.0.1:4566', 'http://10.0.0.1/123456789012/q')).toBe('127.0.0.1');
});
