import { Readable } from 'node:stream';
import { MAX_BROKER_ANSWER_BYTES } from '../../kernel/limits';

/**
 * The first `limit` bytes of `source`, then its end: past the limit the connection is closed, so
 * nothing more is read. A body cut short may not parse: for the calls whose answer the SDK
 * reads (SQS, SNS, EventBridge), that is a failed attempt; Lambda's payload goes unread.
 */
const cappedBody = (source: Readable, limit: number): Readable => {
  let seen = 0;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    out.push(null);
  };
  const out = new Readable({ read: () => void source.resume() });
  source.on('data', (chunk: Buffer) => {
    if (ended) return;
    const room = limit - seen;
    seen += chunk.length;
    if (chunk.length >= room) {
      if (room > 0) out.push(chunk.subarray(0, room));
      end();
      source.destroy();
    } else if (!out.push(chunk)) source.pause();
  });
  source.once('end', end);
  source.once('error', (e) => out.destroy(e));
  return out;
};

/** What of an AWS SDK client this needs: its middleware stack. */
interface WithMiddleware {
  middlewareStack: {
    add: (
      middleware: (next: (args: unknown) => Promise<{ response: unknown }>) => (args: unknown) => Promise<{ response: unknown }>,
      options: { step: 'deserialize'; priority: 'low'; name: string },
    ) => void;
  };
}

/**
 * Every answer the client receives is read up to `limit` bytes (src/kernel/limits.ts): the SDK
 * reads an answer whole, Lambda's RequestResponse payload (6 MB from AWS, anything from an
 * endpoint that is not AWS) included, though the service uses none of it. The middleware sits nearest the
 * HTTP call (the deserialize step, low priority), so the SDK's parser only ever sees the capped body.
 */
export const capAnswers = <C>(client: C, limit = MAX_BROKER_ANSWER_BYTES): C => {
  (client as unknown as WithMiddleware).middlewareStack.add(
    (next) => async (args) => {
      const out = await next(args);
      const response = out.response as { body?: unknown } | undefined;
      if (response && response.body instanceof Readable) response.body = cappedBody(response.body, limit);
      return out;
    },
    { step: 'deserialize', priority: 'low', name: 'capAnswerBody' },
  );
  return client;
};
