import { Agent, Dispatcher } from 'undici';
import { guardedConnector } from '../port/target-guard';

export interface WebhookTransport {
  readonly dispatcher: Dispatcher;
  readonly close: () => Promise<void>;
}

/** The webhook HTTP client: with `allowPrivateTargets` off, every connection passes the SSRF guard. */
export const createWebhookTransport = (options: { allowPrivateTargets: boolean }): WebhookTransport => {
  const dispatcher = new Agent({
    keepAliveTimeout: 10_000,
    ...(options.allowPrivateTargets ? {} : { connect: guardedConnector() }),
  });
  return { dispatcher, close: () => dispatcher.close() };
};
