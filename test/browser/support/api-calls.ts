/** The service's public API from a test, over real HTTP (the admin's tests set up data this way, not through forms). */
export const apiCaller =
  (baseUrl: string) =>
  async <T = Record<string, unknown>>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (res.status === 204 ? undefined : await res.json()) as T;
  };

/** Polls `check` until it returns a value (not undefined); fails after `timeoutMs`. */
export const eventually = async <T>(check: () => Promise<T | undefined>, timeoutMs = 30_000, what = 'condition'): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
};
