import type { Response } from 'express';
import { DomainError } from '../kernel/domain-error';
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
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  409: 'Conflict', 412: 'Precondition Failed', 413: 'Content Too Large', 415: 'Unsupported Media Type', 422: 'Unprocessable Content',
  500: 'Internal Server Error', 503: 'Service Unavailable',
};

export const problem = (status: number, detail?: string, errors?: FieldError[]): Problem => ({
  type: status === 400 && errors ? 'https://action-triggers.dev/problems/validation' : 'about:blank',
  title: TITLES[status] ?? 'Error',
  status,
  ...(detail === undefined ? {} : { detail }),
  ...(errors === undefined ? {} : { errors }),
});

/**
 * A problem sent before the request's body has arrived (401, 403, 404, 405, 413, 415) leaves the
 * body unread: Node discards it as it arrives, never buffering it, within the server's request
 * timeout. (Closing the connection instead would reset it under the unread bytes, and clients
 * would see a reset rather than the answer.)
 */
export const sendProblem = (res: Response, p: Problem): void => {
  res.status(p.status).type('application/problem+json').send(JSON.stringify(p));
};

export const invalid = (errors: FieldError[]): Problem =>
  problem(400, `${errors.length} invalid field${errors.length === 1 ? '' : 's'}`, errors);

/** The one place where each expected failure gets its HTTP status. */
export const problemOf = (e: DomainError): Problem => {
  switch (e._tag) {
    case 'Validation': return invalid(e.errors);
    case 'NotFound': return problem(404, `no trigger with id ${e.ids.join(', ')}`);
    case 'AlreadyExists': return problem(409, `trigger ${e.id} already exists`);
    case 'VersionMismatch': return problem(412, `If-Match names version ${e.expected}, the trigger has moved on`);
    case 'ConcurrentUpdate': return problem(409, 'the trigger was changed concurrently too often; try again');
    default: {
      const _never: never = e;
      return problem(500);
    }
  }
};
