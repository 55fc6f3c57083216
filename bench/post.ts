import { Pool } from 'undici';

/**
 * JSON POSTs to the service from the load generator, on a pool of kept-alive connections. The
 * global `fetch` cost this process ~4.6 ms of CPU per delivered signal at 50/s (WHATWG streams per
 * request), CPU the service and Temporal then lacked on a 2-core machine.
 */
export const jsonPoster = (baseUrl: string) => {
  const pool = new Pool(baseUrl, { connections: 64 });
  const post = async (path: string, body: unknown): Promise<{ status: number; json: () => Promise<unknown> }> => {
    const res = await pool.request({ path, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    let parsed: Promise<unknown> | undefined;
    const json = () => (parsed ??= res.body.json());
    // The body is read even when the caller does not ask, so the connection goes back to the pool.
    void json().catch(() => undefined);
    return { status: res.statusCode, json };
  };
  return { post, close: () => pool.close() };
};
