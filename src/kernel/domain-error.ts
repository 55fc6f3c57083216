import { FieldError } from './field-errors';

/** Expected failures, as values. src/http/problem.ts maps each `_tag` to one HTTP status. */
export type DomainError =
  | { _tag: 'Validation'; errors: FieldError[] }
  | { _tag: 'NotFound'; ids: string[] }
  | { _tag: 'AlreadyExists'; id: string }
  | { _tag: 'VersionMismatch'; expected: number; actual: number }
  | { _tag: 'ConcurrentUpdate'; id: string };
