#!/usr/bin/env node
/**
 * `npm run receiver`: a webhook receiver to try the service with on one machine. Listens on
 * 127.0.0.1:9000 (RECEIVER_PORT) and prints each request it gets: method, path, the
 * `webhook-*` headers and the body. Answers 204, or RECEIVER_STATUS (e.g. 503, to watch the
 * service retry). Runs on any Node; stops on Ctrl-C.
 */
const { createServer } = require('node:http');

const port = Number(process.env.RECEIVER_PORT ?? 9000);
const status = Number(process.env.RECEIVER_STATUS ?? 204);
const MAX_SHOWN = 4096;

const server = createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on('data', (c) => {
    size += c.length;
    if (size <= MAX_SHOWN) chunks.push(c);
  });
  req.on('end', () => {
    const headers = Object.entries(req.headers).filter(([name]) => name.startsWith('webhook-') || name === 'content-type');
    const body = Buffer.concat(chunks).toString('utf8').slice(0, MAX_SHOWN);
    console.log(`${new Date().toISOString()} ${req.method} ${req.url}`);
    for (const [name, value] of headers) console.log(`  ${name}: ${value}`);
    console.log(`  ${body}${size > MAX_SHOWN ? ` … (${size} bytes)` : ''}`);
    res.writeHead(status).end();
  });
});
server.on('error', (e) => {
  console.error(`receiver: cannot listen on 127.0.0.1:${port}: ${e.code ?? e.message} (set RECEIVER_PORT to use another port)`);
  process.exit(1);
});
server.listen(port, '127.0.0.1', () => console.log(`receiver: listening on http://127.0.0.1:${port}/, answering ${status}`));
