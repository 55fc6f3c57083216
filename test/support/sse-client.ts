import { request, IncomingMessage, ClientRequest } from 'node:http';

export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

/**
 * A raw Server-Sent Events client on node:http: parses messages and counts comment lines, so a
 * test sees exactly what a browser's EventSource or a SIEM collector would.
 */
export const openSse = (url: string, headers: Record<string, string> = {}) =>
  new Promise<{
    status: number;
    headers: IncomingMessage['headers'];
    messages: SseMessage[];
    comments: () => number;
    waitFor: (done: (m: SseMessage[]) => boolean, ms?: number) => Promise<SseMessage[]>;
    close: () => void;
    body: () => string;
    onEnd: (f: () => void) => void;
  }>((resolve, reject) => {
    const messages: SseMessage[] = [];
    let comments = 0;
    let buffer = '';
    let raw = '';
    const waiters = new Set<() => void>();
    const req: ClientRequest = request(url, { headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        raw += chunk;
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const m: SseMessage = { data: '' };
          let isMessage = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) {
              comments++;
              continue;
            }
            const [field, ...rest] = line.split(':');
            const value = rest.join(':').replace(/^ /, '');
            if (field === 'id') m.id = value;
            else if (field === 'event') m.event = value;
            else if (field === 'data') {
              m.data += value;
              isMessage = true;
            }
          }
          if (isMessage) messages.push(m);
        }
        waiters.forEach((w) => w());
      });
      res.on('error', () => undefined);
      let ended = false;
      const enders: Array<() => void> = [];
      res.on('close', () => {
        ended = true;
        enders.forEach((f) => f());
      });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        messages,
        comments: () => comments,
        body: () => raw,
        waitFor: (done, ms = 5000) =>
          new Promise((ok, fail) => {
            const check = () => {
              if (done(messages)) {
                waiters.delete(check);
                clearTimeout(timer);
                ok(messages);
              }
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`SSE: condition not met in ${ms} ms; have ${messages.length} messages`));
            }, ms);
            waiters.add(check);
            check();
          }),
        close: () => {
          req.destroy();
        },
        onEnd: (f) => {
          if (ended) f();
          else enders.push(f);
        },
      });
    });
    req.on('error', reject);
    req.end();
  });
