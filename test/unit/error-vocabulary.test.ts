import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ApiError, problemOf } from '../../src/http/problem';

/** One value of every failure the routes answer with, and the status each must get. */
const EVERY_ERROR: Array<[ApiError, number]> = [
  [{ _tag: 'Validation', errors: [{ path: 'webhooks[0].url', message: 'must be a URL' }] }, 400],
  [{ _tag: 'NotFound', ids: ['a'] }, 404],
  [{ _tag: 'SignalNotFound', id: 's' }, 404],
  [{ _tag: 'RedeliveryNotFound', signalId: 's', number: '2' }, 404],
  [{ _tag: 'UnknownCursor' }, 404],
  [{ _tag: 'AlreadyExists', id: 'a' }, 409],
  [{ _tag: 'VersionMismatch', expected: 1, actual: 2 }, 412],
  [{ _tag: 'ConcurrentUpdate', id: 'a' }, 409],
  [{ _tag: 'NothingAccepted', errors: [{ path: '[0]', message: 'too many actions' }] }, 422],
  [{ _tag: 'RedeliveryRefused', detail: 'already under way' }, 409],
  [{ _tag: 'NoDispatch' }, 503],
  [{ _tag: 'DispatchUnavailable' }, 503],
  [{ _tag: 'Unavailable', reason: 'why', extensions: { signals: [] } }, 503],
  [{ _tag: 'Unauthenticated' }, 401],
  [{ _tag: 'Forbidden', reason: 'why' }, 403],
  [{ _tag: 'NoRoute', method: 'GET', path: '/x' }, 404],
  [{ _tag: 'NoAdminAsset', path: '/x.js' }, 404],
  [{ _tag: 'MethodNotAllowed', method: 'PUT', allow: 'GET' }, 405],
  [{ _tag: 'UnsupportedMediaType', detail: 'why' }, 415],
  [{ _tag: 'BodyTooLarge' }, 413],
  [{ _tag: 'BodyNotJson' }, 400],
  [{ _tag: 'BadRequest', status: 400, detail: 'why' }, 400],
  [{ _tag: 'Internal' }, 500],
];

test('every failure has one status and a problem+json body that says what went wrong', () => {
  for (const [error, status] of EVERY_ERROR) {
    const p = problemOf(error);
    expect([error._tag, p.status]).toEqual([error._tag, status]);
    expect(p.title.length).toBeGreaterThan(0);
    if (status !== 500) expect(typeof p.detail).toBe('string');
  }
  // A validation problem names each field; a 503 carries the members a client acts on.
  expect(problemOf(EVERY_ERROR[0]![0]).errors).toEqual([{ path: 'webhooks[0].url', message: 'must be a URL' }]);
  expect(problemOf({ _tag: 'Unavailable', reason: 'r', extensions: { signals: [{ id: 's', accepted: false }] } }).signals).toEqual([
    { id: 's', accepted: false },
  ]);
});

const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });

test('only src/http/problem.ts turns a failure into a status and a problem body', () => {
  const root = join(__dirname, '../..');
  const offenders = ['src']
    .flatMap((d) => sources(join(root, d)))
    .filter((file) => !file.endsWith(join('http', 'problem.ts')))
    .filter((file) =>
      /\.type\(['"]application\/problem\+json|['"]Content-Type['"]: ['"]application\/problem\+json|\.status\([45]\d\d\)|\bstatusCode = [45]\d\d|writeHead\([45]\d\d/.test(
        readFileSync(file, 'utf8'),
      ),
    )
    .map((file) => relative(root, file));
  expect(offenders).toEqual([]);
});
