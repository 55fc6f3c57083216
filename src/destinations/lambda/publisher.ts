import type { BrokerKeys } from '../broker-kit/settings-keys';
import type { BrokerConnection, OutboundMessage, Publisher } from '../broker-kit/port';
import { reader } from '../broker-kit/settings';
import { PublishFailure, token } from '../broker-kit/publish-error';
import {
  AWS_CONN,
  awsClientOptions,
  AwsConnection,
  awsPublisher,
  isJsonContentType,
  readAwsConnection,
  refusedByAws,
} from '../broker-kit/aws';
import { capAnswers } from '../broker-kit/answer-cap';

const INVOCATION_TYPES = ['RequestResponse', 'Event'] as const;
const PAYLOAD_ENCODINGS = ['json', 'json_string'] as const;

/** One function (name, ARN or partial ARN) and how it is called. */
export interface LambdaSettings {
  aws: AwsConnection;
  functionName: string;
  qualifier: string | undefined;
  invocationType: (typeof INVOCATION_TYPES)[number];
  payloadEncoding: (typeof PAYLOAD_ENCODINGS)[number];
}

/** The keys an aws_lambda broker reads; the params keep boto3's `invoke` names, as django-action-triggers' actions do. */
const LAMBDA_KEYS = {
  conn_details: AWS_CONN,
  params: {
    FunctionName: { required: true, address: 'destination', description: 'The function: its name, its ARN or a partial ARN' },
    Qualifier: { description: 'A version or alias of the function' },
    InvocationType: {
      default: 'RequestResponse',
      format: 'RequestResponse or Event',
      description: 'RequestResponse waits for the function and retries its errors; Event hands the call to Lambda, which runs it later',
    },
    payload_encoding: {
      default: 'json',
      format: 'json or json_string',
      description:
        "json: a JSON body is the function's event as it is (a text body becomes a JSON string); json_string: every body becomes one JSON string, as django-action-triggers sent it",
    },
  },
} as const satisfies BrokerKeys;

const oneOf = <T extends string>(allowed: readonly T[], v: string | undefined, fallback: T): T | undefined =>
  v === undefined ? fallback : allowed.find((a) => a === v);

const settings: Publisher<LambdaSettings>['settings'] = (connDetails, params) => {
  const r = reader(LAMBDA_KEYS, connDetails, params);
  const aws = readAwsConnection(r.conn);
  const functionName = r.params.required('FunctionName');
  const qualifier = r.params.optional('Qualifier');
  const invocationType = oneOf(INVOCATION_TYPES, r.params.optional('InvocationType'), 'RequestResponse');
  if (!invocationType) r.problem('params.InvocationType', 'must be RequestResponse or Event');
  const payloadEncoding = oneOf(PAYLOAD_ENCODINGS, r.params.optional('payload_encoding'), 'json');
  if (!payloadEncoding) r.problem('params.payload_encoding', 'must be json or json_string');
  return r.result({
    aws,
    functionName,
    qualifier,
    invocationType: invocationType ?? 'RequestResponse',
    payloadEncoding: payloadEncoding ?? 'json',
  });
};

/** Lambda takes only JSON: a JSON body as it is, anything else (or every body, with json_string) as one JSON string. */
export const lambdaPayload = (message: OutboundMessage, encoding: LambdaSettings['payloadEncoding']) =>
  encoding === 'json' && isJsonContentType(message.contentType) ? message.body : JSON.stringify(message.body);

/** The delivery id, content type and trace context, in the function's `context.clientContext.custom`. */
export const clientContext = (message: OutboundMessage) =>
  Buffer.from(
    JSON.stringify({
      custom: {
        'delivery-id': message.deliveryId,
        'content-type': message.contentType,
        ...(message.traceparent ? { traceparent: message.traceparent } : {}),
      },
    }),
  ).toString('base64');

/** Invoke; a function error (the call went through, the function threw) is retried like a broker that did not take the message. */
const open = async (s: LambdaSettings): Promise<BrokerConnection<LambdaSettings>> => {
  const { LambdaClient, InvokeCommand } = await import('@aws-sdk/client-lambda');
  const client = capAnswers(new LambdaClient(awsClientOptions(s.aws)));
  return {
    broken: () => false,
    publish: async (target, message) => {
      const answer = await client.send(
        new InvokeCommand({
          FunctionName: target.functionName,
          ...(target.qualifier ? { Qualifier: target.qualifier } : {}),
          InvocationType: target.invocationType,
          ClientContext: clientContext(message),
          Payload: Buffer.from(lambdaPayload(message, target.payloadEncoding)),
        }),
      );
      if (answer.FunctionError !== undefined) {
        throw new PublishFailure(`the function returned an error (${token(answer.FunctionError) ?? 'error'})`);
      }
      return answer.$metadata.requestId ? { brokerMessageId: answer.$metadata.requestId } : {};
    },
    close: async () => {
      client.destroy();
    },
  };
};

export const lambdaPublisher = awsPublisher<LambdaSettings>({
  brokerType: 'aws_lambda',
  keys: LAMBDA_KEYS,
  refusedForGood: refusedByAws,
  settings,
  connect: open,
});
