import type { Request, Response } from 'express';
import { FieldError } from '../kernel/field-errors';
import { callerOf } from './auth';

/** The `Link` header for the next page of a list: the same query with the new cursor (in `param`). */
export const linkToNext = (req: Request, cursor: string, param = 'cursor'): string => {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(req.query)) if (k !== param && typeof v === 'string') params.set(k, v);
  params.set(param, cursor);
  return `<${req.baseUrl}${req.path}?${params.toString()}>; rel="next"`;
};

/** What `If-Match` accepts: `*`, or one version tag such as `"3"` or `W/"3"` (the OpenAPI document says the same). */
export const IF_MATCH = '^[ \\t]*(\\*|(W/)?"[0-9]{1,15}")[ \\t]*$';
const IF_MATCH_RE = new RegExp(IF_MATCH);

/** Who asked, in which request, when: what every event a request appends records. */
export interface RequestMetadata {
  actor: string;
  request_id: string;
  occurred_at: string;
}

export const metadataOf = (res: Response, now: Date): RequestMetadata => ({
  actor: callerOf(res).actor,
  request_id: String(res.locals.requestId),
  occurred_at: now.toISOString(),
});

export type IfMatch = { kind: 'none' } | { kind: 'any' } | { kind: 'version'; version: number } | { kind: 'invalid' };

/** `If-Match: "3"` (or W/"3", or *): the version the client last saw. */
export const ifMatchOf = (req: Request): IfMatch => {
  const header = req.get('if-match');
  if (header === undefined) return { kind: 'none' };
  if (!IF_MATCH_RE.test(header)) return { kind: 'invalid' };
  const version = /"([0-9]+)"/.exec(header);
  return version ? { kind: 'version', version: Number(version[1]) } : { kind: 'any' };
};

/** A query parameter given at most once; given again (or as an object), undefined and an error naming it. */
export const oneQueryValue = (query: Request['query'], name: string, errors: FieldError[]): string | undefined => {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') {
    errors.push({ path: `query.${name}`, message: 'must be given once' });
    return undefined;
  }
  return v;
};

export const ifMatchError: FieldError = { path: 'header:If-Match', message: 'must be an entity tag such as "3" or *' };

export const etagOf = (version: number) => `"${version}"`;

/** Sends JSON text already serialised (read-model rows hold it): no stringify on the hot path. */
export const sendJson = (res: Response, status: number, json: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json) });
  res.end(res.req.method === 'HEAD' ? undefined : json);
};
