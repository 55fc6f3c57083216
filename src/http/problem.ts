import type { Response } from 'express';
import type { DomainError } from '../kernel/domain-error';
import { FieldError } from '../kernel/field-errors';

/** RFC 9457 problem details. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  errors?: FieldError[];
  /** Extension members (RFC 9457 §3.2), e.g. which signals of a batch were accepted. */
  [extension: string]: unknown;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

const problem = (status: number, detail?: string, errors?: FieldError[]): Problem => ({
  type: status === 400 && errors ? 'https://action-triggers.dev/problems/validation' : 'about:blank',
  title: TITLES[status] ?? 'Error',
  status,
  ...(detail === undefined ? {} : { detail }),
  ...(errors === undefined ? {} : { errors }),
});

/** Failures of the HTTP layer itself, before or around any route's work. */
export type HttpError =
  | { _tag: 'Unauthenticated' }
  | { _tag: 'Forbidden'; reason: string }
  | { _tag: 'NoRoute'; method: string; path: string }
  | { _tag: 'NoAdminAsset'; path: string }
  | { _tag: 'MethodNotAllowed'; method: string; allow: string }
  | { _tag: 'UnsupportedMediaType'; detail: string }
  | { _tag: 'BodyTooLarge' }
  | { _tag: 'BodyNotJson' }
  /** Another 4xx the body parser gave, with its own text. */
  | { _tag: 'BadRequest'; status: number; detail: string }
  /** A bug: logged where it happened, never described to the client. */
  | { _tag: 'Internal' };

export type ApiError = DomainError | HttpError;

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** The one place where each failure gets its HTTP status and its text. */
export const problemOf = (e: ApiError): Problem => {
  switch (e._tag) {
    case 'Validation':
      return problem(400, `${count(e.errors.length, 'invalid field')}`, e.errors);
    case 'NotFound':
      return problem(
        404,
        `no trigger with id ${e.ids.join(', ')}${e.asOf === undefined ? '' : ` at ${e.asOf}`}${e.nothingDeleted ? '; nothing was deleted' : ''}`,
      );
    case 'SignalNotFound':
      return problem(404, `no ${e.stored ? 'stored ' : ''}signal with id ${e.id}`);
    case 'RedeliveryNotFound':
      return problem(404, `no redelivery ${e.number} of a stored signal ${e.signalId}`);
    case 'UnknownCursor':
      return problem(404, 'no page at this cursor: cursors come from next_cursor');
    case 'AlreadyExists':
      return problem(409, `trigger ${e.id} already exists`);
    case 'VersionMismatch':
      return problem(412, `If-Match names version ${e.expected}, the trigger has moved on`);
    case 'ConcurrentUpdate':
      return problem(409, 'the trigger was changed concurrently too often; try again');
    case 'NothingAccepted':
      return problem(422, 'nothing was accepted', e.errors);
    case 'RedeliveryRefused':
    case 'CancelRefused':
      return problem(409, e.detail, e.errors);
    case 'NoDispatch':
      return problem(503, 'dispatch is not running in this process');
    case 'DispatchUnavailable':
      return problem(503, `the dispatch service is unavailable${e.why ? `: ${e.why}` : ''}${e.tryAgain ? '; try again' : ''}`);
    case 'Unavailable':
      return { ...problem(503, e.reason), ...e.extensions };
    case 'Unauthenticated':
      return problem(401, 'a valid API key is required (Authorization: Bearer <key>)');
    case 'Forbidden':
      return problem(403, e.reason);
    case 'NoRoute':
      return problem(404, `no route ${e.method} ${e.path}`);
    case 'NoAdminAsset':
      return problem(404, `no admin asset ${e.path}`);
    case 'MethodNotAllowed':
      return problem(405, `${e.method} is not allowed here; allowed: ${e.allow}`);
    case 'UnsupportedMediaType':
      return problem(415, e.detail);
    case 'BodyTooLarge':
      return problem(413, 'the request body is too large');
    case 'BodyNotJson':
      return problem(400, 'the request body is not valid JSON');
    case 'BadRequest':
      return problem(e.status, e.detail);
    case 'Internal':
      return problem(500, 'internal error; it has been logged');
    default: {
      const _never: never = e;
      return problem(500);
    }
  }
};

/**
 * A problem sent before the request's body has arrived (401, 403, 404, 405, 413, 415) leaves the
 * body unread: Node discards it as it arrives, never buffering it, within the server's request
 * timeout. (Closing the connection instead would reset it under the unread bytes, and clients
 * would see a reset rather than the answer.)
 */
const sendProblem = (res: Response, p: Problem): void => {
  res.status(p.status).type('application/problem+json').send(JSON.stringify(p));
};

/** When to ask again after a 503 from Temporal or its workers: moments, for a restart or a worker coming up. */
const DISPATCH_RETRY_AFTER_SECS = 5;

/** How every route answers with a failure. */
export const sendError = (res: Response, e: ApiError): void => {
  if (e._tag === 'Unavailable' && e.retryAfterSecs !== undefined) res.set('Retry-After', String(e.retryAfterSecs));
  if (e._tag === 'DispatchUnavailable' && e.tryAgain) res.set('Retry-After', String(DISPATCH_RETRY_AFTER_SECS));
  sendProblem(res, problemOf(e));
};
