import { createServer, IncomingMessage, Server } from 'node:http';
import { request } from 'node:http';

/** One Invoke call as the recorder saw it on its way to the emulator. */
export interface Invocation {
  readonly functionName: string;
  readonly invocationType: string | undefined;
  /** The decoded `X-Amz-Client-Context` (base64 JSON), if sent. */
  readonly clientContext: { custom?: Record<string, string> } | undefined;
  readonly payload: string;
}

/** An answer the recorder gives in the emulator's place, once per call, in order. */
export type InjectedAnswer = 'throttled' | 'server-error' | 'function-error' | 'not-found';

export interface LambdaRecorder {
  readonly endpoint: string;
  readonly invocations: Invocation[];
  /** The next calls are answered so instead of forwarded (429 throttling, 503, 200 with X-Amz-Function-Error, or 404 no such function). */
  answerNext(...answers: InjectedAnswer[]): void;
  close(): Promise<void>;
}

const INVOKE = /^\/2015-03-31\/functions\/([^/]+)\/invocations/;

const bodyOf = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

const contextOf = (header: string | string[] | undefined) => {
  if (typeof header !== 'string') return undefined;
  return JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as Invocation['clientContext'];
};

/**
 * A loopback proxy in front of moto's Lambda API: moto runs the functions (no Docker) but keeps
 * no list of invocations and cannot fail one (it even answers for a function it does not have),
 * so this records every Invoke it forwards, and answers a call with throttling, a 5xx, a function
 * error or Lambda's "no such function" when told to.
 */
export const startLambdaRecorder = async (motoEndpoint: string): Promise<LambdaRecorder> => {
  const target = new URL(motoEndpoint);
  const invocations: Invocation[] = [];
  const injected: InjectedAnswer[] = [];
  const server: Server = createServer((req, res) => {
    void bodyOf(req).then((body) => {
      const invoke = INVOKE.exec(req.url ?? '');
      if (invoke) {
        const next = injected.shift();
        if (next === 'throttled') {
          res.writeHead(429, { 'content-type': 'application/json', 'x-amzn-errortype': 'TooManyRequestsException' });
          return res.end(JSON.stringify({ message: 'Rate exceeded', Type: 'User', Reason: 'ConcurrentInvocationLimitExceeded' }));
        }
        if (next === 'server-error') {
          res.writeHead(503, { 'content-type': 'application/json', 'x-amzn-errortype': 'ServiceException' });
          return res.end(JSON.stringify({ message: 'Service unavailable' }));
        }
        if (next === 'not-found') {
          res.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' });
          return res.end(JSON.stringify({ message: 'Function not found', Type: 'User' }));
        }
        if (next === 'function-error') {
          res.writeHead(200, {
            'content-type': 'application/json',
            'x-amz-function-error': 'Unhandled',
            'x-amz-executed-version': '$LATEST',
          });
          return res.end(JSON.stringify({ errorMessage: 'boom', errorType: 'Error' }));
        }
        invocations.push({
          functionName: decodeURIComponent(invoke[1]!),
          invocationType: req.headers['x-amz-invocation-type'] as string | undefined,
          clientContext: contextOf(req.headers['x-amz-client-context']),
          payload: body.toString('utf8'),
        });
      }
      const forward = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    invocations,
    answerNext: (...answers) => injected.push(...answers),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
};
