/**
 * A time zone argument as DuckDB's `timezone()` reads it the way BigQuery does. BigQuery takes a
 * zone's name or an offset from UTC, `{+|-}H[H][:M[M]]`, with or without a `UTC` before it. DuckDB
 * (ICU) knows names only: `'+08:00'` is its "Unknown TimeZone" error, and `'UTC+05:30'` or
 * `'UTC+1234'` it reads without the minutes (+05:00, +12:00): a wrong answer. An offset of whole
 * hours is written as the fixed zone of that offset (`'+08:00'` -> `'Etc/GMT-8'`: POSIX's sign,
 * the other way round); an offset with minutes is an error when the query runs, by name, as no
 * zone DuckDB knows has that offset at every date. A zone's name is left as written. A literal is
 * rewritten here; any other zone (a column, a parameter) through the `time_zone` macro
 * (sql-macros.ts), which does the same when it runs.
 */
import { quoteString } from './quote.js';
import { raise } from './semantics.js';
import { sqlMacroName, ZONE_MINUTES_REFUSED, ZONE_OFFSET_PATTERN } from './sql-macros.js';

/** The macro's regular expression, so that a literal and a column are read alike. */
const OFFSET = new RegExp(ZONE_OFFSET_PATTERN);

/** The fixed zone DuckDB knows for a whole-hour offset. */
function fixedZone(sign: string, hours: number): string {
  return hours === 0 ? 'UTC' : `Etc/GMT${sign === '+' ? '-' : '+'}${hours}`;
}

/** The SQL of a zone for DuckDB's `timezone()`, from the SQL of BigQuery's zone argument. */
export function duckZone(zone: string): string {
  const literal = /^'((?:[^']|'')*)'$/.exec(zone);
  if (literal === null) return `${sqlMacroName('time_zone')}(${zone})`;
  const offset = OFFSET.exec(literal[1]!.replaceAll("''", "'"));
  if (offset === null) return zone;
  const [, , sign, hours, , minutes] = offset;
  if (minutes !== undefined && Number(minutes) !== 0) return raise(ZONE_MINUTES_REFUSED, 'VARCHAR');
  return quoteString(fixedZone(sign!, Number(hours)));
}
