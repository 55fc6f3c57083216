import { maskedError, maskFrom, MIN_MASKED_CHARS } from '../../src/delivery/secret-mask';

const mask = maskFrom(
  new Map<string, unknown>([
    ['env.TOKEN', 'p@ss "w/rd" ü'],
    ['env.HOST', 'broker.internal'],
    ['env.QUEUE', 'orders'],
    ['secrets.key', { client_email: 'svc@example.iam', private_key: '-----BEGIN KEY-----\nabc' }],
    ['env.SHORT', 'abc'],
    ['env.PORT', 5672],
  ]),
);

test('a resolved value is replaced by its {{ path }}, wherever and however often it appears', () => {
  expect(mask("queue name 'amq.orders' contains reserved prefix 'amq.*'; orders again")).toBe(
    "queue name 'amq.{{ env.QUEUE }}' contains reserved prefix 'amq.*'; {{ env.QUEUE }} again",
  );
  expect(mask('connect ECONNREFUSED broker.internal:5672')).toBe('connect ECONNREFUSED {{ env.HOST }}:{{ env.PORT }}');
});

test('its JSON-escaped and URL-encoded forms are masked too', () => {
  expect(mask('body {"t":"p@ss \\"w/rd\\" ü"}')).toBe('body {"t":"{{ env.TOKEN }}"}');
  expect(mask(`GET /x?t=${encodeURIComponent('p@ss "w/rd" ü')}`)).toBe('GET /x?t={{ env.TOKEN }}');
  expect(mask(`url ${encodeURI('p@ss "w/rd" ü')}`)).toBe('url {{ env.TOKEN }}');
});

test('an object value is masked whole and by each string inside it', () => {
  expect(mask('bad key for svc@example.iam')).toBe('bad key for {{ secrets.key }}');
  expect(mask(`parsed ${JSON.stringify({ client_email: 'svc@example.iam', private_key: '-----BEGIN KEY-----\nabc' })}`)).toBe(
    'parsed {{ secrets.key }}',
  );
});

test(`values shorter than ${MIN_MASKED_CHARS} characters are left alone, so errors stay readable`, () => {
  expect(mask('abc def')).toBe('abc def');
});

test('the longest value wins where values overlap; a mask is never masked again', () => {
  const m = maskFrom(
    new Map([
      ['env.A', 'secret'],
      ['env.B', 'secret-long'],
      ['env.C', 'env.A'],
    ]),
  );
  expect(m('x secret-long y secret z env.A')).toBe('x {{ env.B }} y {{ env.A }} z {{ env.C }}');
});

test('with no values (nothing resolved yet), texts pass unchanged', () => {
  expect(maskFrom(new Map())('anything')).toBe('anything');
});

test('an unexpected error holding a value is copied without it (name kept, cause masked); one without is passed as it is', () => {
  const e = new TypeError('cannot reach broker.internal', { cause: new Error('lookup broker.internal failed') });
  const copy = maskedError(e, mask) as Error;
  expect(copy).not.toBe(e);
  expect([copy.name, copy.message, (copy.cause as Error).message]).toEqual([
    'TypeError',
    'cannot reach {{ env.HOST }}',
    'lookup {{ env.HOST }} failed',
  ]);
  expect(copy.stack).not.toContain('broker.internal');
  const clean = new Error('nothing secret');
  expect(maskedError(clean, mask)).toBe(clean);
  expect(maskedError('a string', mask)).toBe('a string');
});
