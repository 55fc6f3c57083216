import { unavailableReason } from '../../src/event-store/postgres-connection';

/** A server error as the driver builds it: a SQLSTATE, a severity and the server's own text. */
const serverError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'FATAL' });

test("outages are named in our words with their SQLSTATE; the server's text (files, users) never appears", () => {
  expect(unavailableReason(serverError('57P03', 'the database system is starting up'))).toBe(
    'PostgreSQL: the server is starting up (SQLSTATE 57P03)',
  );
  expect(unavailableReason(serverError('28P01', 'password authentication failed for user "events_admin"'))).toBe(
    'PostgreSQL: the server refused the password (SQLSTATE 28P01)',
  );
  const full = unavailableReason(serverError('53100', 'could not extend file "base/16384/16390": No space left on device'));
  expect(full).toBe("PostgreSQL: the server's disk is full (SQLSTATE 53100)");
  expect(unavailableReason(serverError('58030', 'could not open file "/var/lib/postgresql/x"'))).toBe(
    'PostgreSQL: the server refused the work (SQLSTATE 58030)',
  );
  expect(unavailableReason(serverError('25006', 'cannot execute INSERT in a read-only transaction'))).toBe(
    'PostgreSQL: the server is read-only (SQLSTATE 25006)',
  );
});

test('a lost connection is an outage; a statement the server refuses for what it says is not (a bug: 500)', () => {
  expect(unavailableReason(Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' }))).toBe(
    'cannot reach the PostgreSQL server (ECONNREFUSED)',
  );
  expect(unavailableReason(new Error('Connection terminated unexpectedly'))).toBe('PostgreSQL: Connection terminated unexpectedly');
  expect(unavailableReason(new Error('timeout exceeded when trying to connect'))).toBe(
    'PostgreSQL: timeout exceeded when trying to connect',
  );
  expect(unavailableReason(serverError('42601', 'syntax error at or near "x"'))).toBeUndefined();
  expect(unavailableReason(serverError('23505', 'duplicate key value violates unique constraint'))).toBeUndefined();
  expect(unavailableReason(new TypeError('x is not a function'))).toBeUndefined();
});
