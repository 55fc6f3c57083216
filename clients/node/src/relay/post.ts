import type { ClaimedRow } from './claim.ts';
import { type Answer, readAnswer } from './answer.ts';
import type { Settings } from './options.ts';

/**
 * Sends rows as one `POST /api/signals` (an array body, the rows' JSON as stored). A redirect is
 * never followed: the API key would go along to wherever it points.
 */
export const postRows = async (s: Settings, rows: readonly ClaimedRow[]): Promise<Answer> => {
  const url = `${s.url}/api/signals`;
  let res: Response;
  try {
    res = await s.fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/json', ...(s.apiKey ? { authorization: `Bearer ${s.apiKey}` } : {}) },
      body: `[${rows.map((r) => r.json).join(',')}]`,
      signal: AbortSignal.timeout(s.timeoutMs),
    });
  } catch (e) {
    const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : '';
    return { kind: 'unavailable', reason: `${url}: ${e instanceof Error ? e.message : String(e)}${cause}` };
  }
  return readAnswer(
    res,
    rows.map((r) => r.signalId),
    url,
  );
};
