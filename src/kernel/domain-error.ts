import { FieldError } from './field-errors';

/**
 * Expected failures, as values: every error a route answers with is one of these or an
 * HttpError (src/http/problem.ts), and `problemOf` there gives each `_tag` its one status and text.
 */
export type DomainError =
  | { _tag: 'Validation'; errors: FieldError[] }
  /** Triggers; `asOf`: none at that moment; `nothingDeleted`: a bulk delete refused whole. */
  | { _tag: 'NotFound'; ids: string[]; asOf?: string; nothingDeleted?: true }
  /** `stored`: the signal store holds no such signal (redelivery needs a stored one). */
  | { _tag: 'SignalNotFound'; id: string; stored?: true }
  | { _tag: 'RedeliveryNotFound'; signalId: string; number: string }
  /** A list cursor this service did not hand out. */
  | { _tag: 'UnknownCursor' }
  | { _tag: 'AlreadyExists'; id: string }
  | { _tag: 'VersionMismatch'; expected: number; actual: number }
  | { _tag: 'ConcurrentUpdate'; id: string }
  /** A batch of signals whose dispatches would pass a bound: none of it is accepted. */
  | { _tag: 'NothingAccepted'; errors: FieldError[] }
  /** A well-formed redelivery the signal's state refuses (409), naming the field when one is the cause. */
  | { _tag: 'RedeliveryRefused'; detail: string; errors?: FieldError[] }
  /** A well-formed cancel the signal's state refuses (409): nothing open, a dispatch still queued, an id not its own. */
  | { _tag: 'CancelRefused'; detail: string; errors?: FieldError[] }
  /** This process runs no dispatch client (Temporal not configured here). */
  | { _tag: 'NoDispatch' }
  /** Temporal, or the store behind it, failed the call; `tryAgain` when the ask may simply be repeated. */
  | { _tag: 'DispatchUnavailable'; tryAgain?: true; why?: string }
  /**
   * Anything else the service cannot do now (503): why, and members the client may act on. A fault
   * the client may retry; with `retryAfterSecs` the answer says when (`Retry-After`).
   */
  | { _tag: 'Unavailable'; reason: string; extensions?: Record<string, unknown>; retryAfterSecs?: number };
