import { createServer, Server } from 'node:http';
import request from 'supertest';
import type { Express } from 'express';
import { MAX_SIGNALS_PER_REQUEST } from '../../src/model/signals/codecs';
import { waitForDispatch } from './signals';

/** Emits `n` post_save signals of shop.`model` (instances 0..n-1), as many a request as one may hold; gives their ids, in order. */
export const emitSignals = async (app: Express, model: string, n: number): Promise<string[]> => {
  const ids: string[] = [];
  for (let from = 0; from < n; from += MAX_SIGNALS_PER_REQUEST) {
    const signals = Array.from({ length: Math.min(MAX_SIGNALS_PER_REQUEST, n - from) }, (_, i) => ({
      signal: 'post_save',
      app_label: 'shop',
      model_name: model,
      instance: { id: from + i },
    }));
    const res = await request(app).post('/api/signals').send(signals).expect(202);
    ids.push(...(res.body as Array<{ id: string }>).map((s) => s.id));
  }
  return ids;
};

/** An action as `GET /api/signals/<id>` shows it (the fields these tests read). */
export interface ActionView {
  trigger_id: string;
  state: string;
  attempts: number;
  status_code?: number;
  waiting_for?: { reason: string; until?: string };
}

/** Each signal's final dispatch, read one after another (call once the deliveries have arrived). */
export const finalDispatches = async (app: Express, ids: readonly string[]) => {
  const done: Array<{ state: string; actions: ActionView[] }> = [];
  for (const id of ids) done.push(await waitForDispatch(app, id));
  return done;
};

/**
 * How late an arrival may come after its slot at sending (the sender's event loop, the network,
 * on a loaded machine): a window of 1000 − JITTER_MS ms of arrivals holds at most the slots of a
 * second, whatever each one's delay up to it.
 */
export const JITTER_MS = 300;
export const ARRIVAL_WINDOW_MS = 1000 - JITTER_MS;

/** The most of `times` (epoch ms) that fall in any window [t, t + ms): windows start at a time of the list. */
export const mostWithin = (times: readonly number[], ms = 1000) => {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (j < sorted.length && sorted[j]! < sorted[i]! + ms) j++;
    most = Math.max(most, j - i);
  }
  return most;
};

/**
 * A loopback HTTP server that answers every request 200 after `delayMs`, counting the requests
 * under way: from the moment one's headers arrive until its answer is sent (or its connection
 * closes). `most` is the highest count seen; `ids` the `webhook-id` of each request, in arrival order.
 */
export const startCountingReceiver = async (delayMs: number) => {
  const state = { now: 0, most: 0, ids: [] as string[] };
  const server: Server = createServer((req, res) => {
    state.now++;
    state.most = Math.max(state.most, state.now);
    state.ids.push(String(req.headers['webhook-id']));
    let ended = false;
    const end = () => {
      if (!ended) state.now--;
      ended = true;
    };
    res.on('finish', end);
    res.on('close', end);
    req.resume();
    setTimeout(() => res.end('ok'), delayMs);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    state,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
};
