import { createServer, Server } from 'node:http';

/** One span as an OTLP/HTTP JSON export carries it (ids in hex). */
export interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string }>;
}

interface ExportBody {
  resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: ExportedSpan[] }> }>;
}

/** A real OTLP/HTTP trace receiver on loopback: it collects the spans POSTed (JSON) to /v1/traces. */
export const startOtlpReceiver = async () => {
  const spans: ExportedSpan[] = [];
  let requests = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests++;
      if (req.method === 'POST' && req.url === '/v1/traces' && /json/.test(req.headers['content-type'] ?? '')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportBody;
        for (const r of body.resourceSpans ?? []) for (const s of r.scopeSpans ?? []) spans.push(...(s.spans ?? []));
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    requests: () => requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
};
