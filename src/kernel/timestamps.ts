const DATE_TIME = (seconds: string) =>
  `^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:${seconds}(\\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`;

/** RFC 3339 `date-time` (what JSON Schema's format means), any fraction, no leap second: a signal's own times. */
export const TIMESTAMP = DATE_TIME('[0-5][0-9]');
/** RFC 3339 `date-time` with a leap second (`:60`, at 23:59 UTC: isComparedTimestamp) admitted: what a condition compares. */
export const COMPARED_TIMESTAMP = DATE_TIME('([0-5][0-9]|60)');

const TIMESTAMP_RE = new RegExp(TIMESTAMP);
const COMPARED_RE = new RegExp(COMPARED_TIMESTAMP);
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysIn = (year: number, month: number) => (month === 2 ? (isLeap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31);
const dayExists = (s: string) => Number(s.slice(8, 10)) <= daysIn(Number(s.slice(0, 4)), Number(s.slice(5, 7)));

export const isTimestamp = (s: string) => TIMESTAMP_RE.test(s) && dayExists(s);

/** RFC 3339: a leap second is the 60th second of 23:59 in UTC (the local time with its offset applied). */
const isLeapMinute = (s: string) => {
  const utc = new Date(Date.parse((s.slice(0, 17) + '59' + s.slice(19)).toUpperCase()));
  return utc.getUTCHours() === 23 && utc.getUTCMinutes() === 59;
};
export const isComparedTimestamp = (s: string) => COMPARED_RE.test(s) && dayExists(s) && (s.slice(17, 19) !== '60' || isLeapMinute(s));

/**
 * A timestamp's instant in milliseconds, and its fraction beyond them (as a string of digits),
 * so two timestamps compare exactly however many fraction digits they carry. A leap second
 * (`:60`, any fraction) is the last instant of its minute: after every `:59.999…` written with
 * digits, before the next minute (`leap`).
 */
export const instantOf = (s: string): { ms: number; sub: string; leap: boolean } => {
  if (s.slice(17, 19) === '60') {
    const lastMs = s.slice(0, 17) + '59.999' + s.slice(19).replace(/^\.[0-9]+/, '');
    return { ms: Date.parse(lastMs.toUpperCase()), sub: '', leap: true };
  }
  const fraction = /\.([0-9]+)/.exec(s)?.[1] ?? '';
  const ms = Date.parse(s.replace(/\.[0-9]+/, '.' + (fraction + '000').slice(0, 3)).toUpperCase());
  return { ms, sub: fraction.slice(3).replace(/0+$/, ''), leap: false };
};
