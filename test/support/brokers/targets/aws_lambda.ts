import { CreateFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { LambdaRecorder, startLambdaRecorder } from '../../lambda-recorder';
import { testServers } from '../../servers';
import { awsClient, awsConn, isJsonType, ON_MOTO } from '../aws-target';
import type { BrokerServers } from '../index';
import { BrokerTarget, collect, Consumed, TestedBrokerType, unique } from '../target';

/** A function that returns its event (moto runs it without Docker), behind a recorder of its invocations. */
const FUNCTION_ZIP = Buffer.from(
  'UEsDBBQAAAAAABWdgV0oDJycKgAAACoAAAAIAAAAaW5kZXguanNleHBvcnRzLmhhbmRsZXIgPSBhc3luYyAoZXZlbnQpID0+IGV2ZW50OwpQSwECFAMUAAAAAAAVnYFdKAycnCoAAAAqAAAACAAAAAAAAAAAAAAAgAEAAAAAaW5kZXguanNQSwUGAAAAAAEAAQA2AAAAUAAAAAAA',
  'base64',
);

/** An IAM role for the function: moto checks that it exists. A Query API call (moto checks no signature). */
const createRole = async (endpoint: string, name: string) => {
  const answer = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: 'AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/iam/aws4_request, SignedHeaders=host, Signature=0',
    },
    body: new URLSearchParams({ Action: 'CreateRole', Version: '2010-05-08', RoleName: name, AssumeRolePolicyDocument: '{}' }),
  });
  if (!answer.ok) throw new Error(`CreateRole: ${answer.status} ${await answer.text()}`);
  return `arn:aws:iam::123456789012:role/${name}`;
};

/** What the function was given, as the sender's body: a JSON body is the event, any other a JSON string. */
const fromInvocation = (payload: string, custom: Record<string, string> = {}): Consumed => ({
  body: isJsonType(custom['content-type']) ? payload : (JSON.parse(payload) as string),
  deliveryId: custom['delivery-id'],
  contentType: custom['content-type'],
  traceparent: custom.traceparent,
});

const open = async (servers: BrokerServers = testServers().brokers): Promise<BrokerTarget & { recorder: LambdaRecorder }> => {
  const lambda = new LambdaClient(awsClient(servers));
  const name = unique('f');
  await lambda.send(
    new CreateFunctionCommand({
      FunctionName: name,
      Runtime: 'nodejs20.x',
      Handler: 'index.handler',
      Role: await createRole(servers.moto.endpoint, unique('role')),
      Code: { ZipFile: FUNCTION_ZIP },
    }),
  );
  lambda.destroy();
  const recorder = await startLambdaRecorder(servers.moto.endpoint);
  const got: Consumed[] = [];
  return {
    type: 'aws_lambda',
    broker: {
      broker_type: 'aws_lambda',
      conn_details: { ...awsConn(servers), endpoint_url: recorder.endpoint },
      params: { FunctionName: name },
    },
    recorder,
    read: (count, timeoutMs = 15_000) =>
      collect(
        async () =>
          recorder.invocations
            .splice(0)
            .flatMap((i) => (i.functionName === name ? [fromInvocation(i.payload, i.clientContext?.custom)] : [])),
        count,
        timeoutMs,
        got,
      ),
    close: () => recorder.close(),
  };
};

const awsLambda: TestedBrokerType = {
  open,
  ...ON_MOTO,
  addressKeys: ['FunctionName', 'endpoint_url'],
  // Added after that test was written; publishers-outage covers its publisher's outage.
  notYetIn: ['brokers-outage-dispatch'],
};
export default awsLambda;
