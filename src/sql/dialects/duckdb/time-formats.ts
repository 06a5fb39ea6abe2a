/**
 * BigQuery's date and time format strings (FORMAT_TIMESTAMP, PARSE_TIMESTAMP and their DATE and
 * DATETIME forms) in DuckDB's terms. Formatting writes each element as BigQuery does, with
 * `strftime` where DuckDB's element means the same and an expression where it does not (`%e`,
 * `%Q`, `%E*S`, `%Ez`...). Parsing becomes a list of `strptime` formats, one per way an element
 * with an optional part can be written (`%E*S` with or without a fraction, `%Ez` or `Z`).
 *
 * Only literal format strings are compiled, so every element is checked before anything runs.
 */
import { quoteString } from './quote.js';
import { repeatable } from './semantics.js';

export type TimeKind = 'timestamp' | 'datetime' | 'date' | 'time';

export class UnsupportedFormat extends Error {}

const TOKEN = /%(E[0-9]S|E\*S|E4Y|Ez|[A-Za-z%])|%|[^%]+/g;

/** Elements written by DuckDB's strftime exactly as BigQuery writes them. */
const SAME_ELEMENTS = new Set(['A', 'a', 'B', 'b', 'h', 'd', 'H', 'I', 'j', 'M', 'm', 'p', 'S', 'U', 'u', 'V', 'W', 'w', 'Y', 'y', 'G', 'T', '%']);
/** Elements that stand for a sequence of others. */
const COMPOSITE: Readonly<Record<string, string>> = { F: '%Y-%m-%d', D: '%m/%d/%y', x: '%m/%d/%y', R: '%H:%M', X: '%H:%M:%S' };
/** Elements of the time of day, which a DATE has none of. */
const TIME_ELEMENTS = new Set(['H', 'I', 'k', 'l', 'M', 'p', 'P', 'R', 'S', 'T', 'X', 'c', 'E*S', 'Ez', 'z', 'Z', 's']);
const ZONE_ELEMENTS = new Set(['Ez', 'z', 'Z']);

function element(token: string): string | undefined {
  return token.startsWith('%') && token.length > 1 ? token.slice(1) : undefined;
}

/** Elements of the date, which a TIME has none of. */
const DATE_ELEMENTS = new Set(['A', 'a', 'B', 'b', 'h', 'C', 'c', 'D', 'd', 'e', 'F', 'G', 'g', 'j', 'm', 'Q', 'U', 'u', 'V', 'W', 'w', 'x', 'Y', 'y', 'E4Y', 's']);

function checkKind(name: string, kind: TimeKind, what: string): void {
  if (kind === 'date' && (TIME_ELEMENTS.has(name) || /^E\dS$/.test(name))) throw new UnsupportedFormat(`%${name} in a DATE ${what} (a DATE has no time of day)`);
  if (kind === 'time' && DATE_ELEMENTS.has(name)) throw new UnsupportedFormat(`%${name} in a TIME ${what} (a TIME has no date)`);
  if (kind !== 'timestamp' && ZONE_ELEMENTS.has(name)) throw new UnsupportedFormat(`%${name} in a ${kind.toUpperCase()} ${what} (only a TIMESTAMP has a time zone)`);
}

export interface FormatValue {
  /** The civil date and time to write, a DuckDB TIMESTAMP. */
  local: string;
  /** The instant, a DuckDB TIMESTAMPTZ, for a TIMESTAMP (`%s`, `%z`). */
  instant?: string | undefined;
  /** The time zone, when it is a literal: then `%z` and `%Z` are written without computing. */
  zone?: string | undefined;
  refuse(what: string): never;
}

/** DuckDB SQL writing `value` with BigQuery's format string. */
export function formatSql(format: string, kind: TimeKind, value: FormatValue): string {
  const local = () => repeatable(value.local, value.refuse);
  const pieces: ({ strftime: string } | { sql: string })[] = [];
  const strftime = (spec: string) => {
    const last = pieces[pieces.length - 1];
    if (last && 'strftime' in last) last.strftime += spec;
    else pieces.push({ strftime: spec });
  };
  const sql = (text: string) => pieces.push({ sql: text });
  const part = (fn: string, width: number, padding: string) => sql(`lpad(CAST(${fn} AS VARCHAR), ${width}, '${padding}')`);
  const offsetMinutes = () => `CAST(round((epoch(${local()}) - epoch(${repeatable(value.instant!, value.refuse)})) / 60) AS BIGINT)`;
  const offset = (separator: string) => {
    if (value.zone?.toUpperCase() === 'UTC') return strftime(`+00${separator}00`);
    const minutes = repeatable(offsetMinutes(), value.refuse);
    sql(`(CASE WHEN ${minutes} < 0 THEN '-' ELSE '+' END || lpad(CAST(abs(${minutes}) // 60 AS VARCHAR), 2, '0') || '${separator}' || lpad(CAST(abs(${minutes}) % 60 AS VARCHAR), 2, '0'))`);
  };
  const micros = () => `strftime(${local()}, '%f')`;

  for (const [token] of format.matchAll(TOKEN)) {
    const name = element(token);
    if (name === undefined) {
      if (token === '%') throw new UnsupportedFormat('a format string ending in a lone %');
      strftime(token.replace(/%/g, '%%'));
      continue;
    }
    checkKind(name, kind, 'format');
    if (SAME_ELEMENTS.has(name)) strftime(`%${name}`);
    else if (name in COMPOSITE) strftime(COMPOSITE[name]!);
    else if (name === 'n') strftime('\n');
    else if (name === 't') strftime('\t');
    else if (name === 'e') part(`day(${local()})`, 2, ' ');
    else if (name === 'k') part(`hour(${local()})`, 2, ' ');
    else if (name === 'l') part(`(hour(${local()}) + 11) % 12 + 1`, 2, ' ');
    else if (name === 'C') part(`year(${local()}) // 100`, 2, '0');
    else if (name === 'g') part(`isoyear(${local()}) % 100`, 2, '0');
    else if (name === 'E4Y') part(`year(${local()})`, 4, '0');
    else if (name === 'Q') sql(`CAST(quarter(${local()}) AS VARCHAR)`);
    else if (name === 'P') sql(`lower(strftime(${local()}, '%p'))`);
    else if (name === 'c') {
      strftime('%a %b ');
      part(`day(${local()})`, 2, ' ');
      strftime(' %H:%M:%S %Y');
    } else if (name === 's') sql(`CAST(CAST(floor(epoch(${value.instant ?? local()})) AS BIGINT) AS VARCHAR)`);
    else if (name === 'E*S') {
      strftime('%S');
      sql(`(CASE WHEN ${micros()} = '000000' THEN '' ELSE '.' || rtrim(${micros()}, '0') END)`);
    } else if (/^E\dS$/.test(name)) {
      const digits = Number(name[1]);
      strftime('%S');
      // BigQuery cuts the fraction to the digits asked for (it does not round) and pads past microseconds.
      if (digits > 0) sql(`'.' || ${digits <= 6 ? `left(${micros()}, ${digits})` : `${micros()} || '${'0'.repeat(digits - 6)}'`}`);
    } else if (name === 'z') offset('');
    else if (name === 'Ez') offset(':');
    else if (name === 'Z') {
      if (value.zone === undefined || value.zone.toUpperCase() !== 'UTC') throw new UnsupportedFormat('%Z with a time zone other than UTC (BigQuery writes the zone\'s abbreviation, which DuckDB does not know)');
      strftime('UTC');
    } else throw new UnsupportedFormat(`format element %${name}`);
  }
  const elements = (piece: { strftime: string }) => /%[^%]/.test(piece.strftime.replace(/%%/g, ''));
  const written = pieces.map((piece) => {
    if ('sql' in piece) return piece.sql;
    // Text without elements is a string; `%%` in it is one `%`.
    if (!elements(piece)) return quoteString(piece.strftime.replace(/%%/g, '%'));
    return `strftime(${local()}, ${quoteString(piece.strftime)})`;
  });
  const text = written.length === 0 ? "''" : written.length === 1 ? written[0]! : `(${written.join(' || ')})`;
  // A format without elements still gives NULL for a NULL value (and reads the value, whatever it binds).
  if (pieces.every((piece) => 'strftime' in piece && !elements(piece))) return `(CASE WHEN ${local()} IS NOT NULL THEN ${text} END)`;
  return text;
}

/** Parse elements DuckDB's strptime reads as BigQuery does. */
const SAME_PARSE_ELEMENTS = new Set(['Y', 'm', 'd', 'H', 'M', 'S', 'y', 'j', 'b', 'B', 'h', 'a', 'A', 'p', 'I', 'T', '%']);
const YEAR_ELEMENTS = new Set(['Y', 'y', 'F', 'D', 'x']);

export interface ParseFormats {
  /** `strptime` formats, tried in order. */
  formats: string[];
  /** Whether the string carries its own UTC offset (then the result is already an instant). */
  zoned: boolean;
  /**
   * Text to put before the string, which each format reads first: a format without a year reads
   * 1970, BigQuery's default (strptime's is 1900); month and day default to 1 on both.
   */
  prefix: string;
}

const DEFAULT_YEAR_PREFIX = '1970|';

/** The DuckDB `strptime` formats that read what BigQuery's format string reads. */
export function parseFormats(format: string, kind: TimeKind): ParseFormats {
  let formats = [''];
  let zoned = false;
  let year = false;
  const append = (...alternatives: string[]) => {
    formats = formats.flatMap((prefix) => alternatives.map((alternative) => prefix + alternative));
  };
  // Runs of white space in the format match runs of white space in the string.
  for (const [token] of format.trim().replace(/\s+/g, ' ').matchAll(TOKEN)) {
    const name = element(token);
    if (name === undefined) {
      if (token === '%') throw new UnsupportedFormat('a format string ending in a lone %');
      append(token.replace(/%/g, '%%'));
      continue;
    }
    checkKind(name, kind, 'format');
    if (YEAR_ELEMENTS.has(name) || name === 'c') year = true;
    if (SAME_PARSE_ELEMENTS.has(name)) append(`%${name}`);
    else if (name in COMPOSITE) append(COMPOSITE[name]!);
    else if (name === 'e') append('%-d');
    else if (name === 'c') append('%a %b %-d %H:%M:%S %Y');
    else if (name === 'E*S') append('%S', '%S.%f');
    else if (/^E[1-6]S$/.test(name)) append('%S.%f');
    else if (name === 'z' || name === 'Ez') {
      // BigQuery reads `Z` as UTC where it reads an offset.
      append('%z', 'Z');
      zoned = true;
    } else throw new UnsupportedFormat(`parse element %${name}`);
  }
  if (year || kind === 'time') return { formats, zoned, prefix: '' };
  return { formats: formats.map((each) => `%Y|${each}`), zoned, prefix: DEFAULT_YEAR_PREFIX };
}

// BigQuery's canonical text of a DATE, TIME, DATETIME and TIMESTAMP, as CAST from STRING and a
// typed literal read it: a year of 0001 to 9999, an hour of 0 to 23. DuckDB reads more (`24:00:00`
// as the next midnight, `infinity`, `epoch`, year 0, five-digit and BC years), which BigQuery
// refuses; the forms both read are left to DuckDB's own checks (a day of the month, a minute).
const YEAR = '([1-9][0-9]{3}|0[1-9][0-9]{2}|00[1-9][0-9]|000[1-9])';
const DATE_TEXT = `${YEAR}-[0-9]{1,2}-[0-9]{1,2}`;
const CLOCK_TEXT = '([01]?[0-9]|2[0-3]):[0-9]{1,2}(:[0-9]{1,2}(\\.[0-9]+)?)?';
const ZONE_TEXT = ' ?(Z|z|[+-][0-9]{1,2}(:?[0-9]{2})?|[A-Za-z_]+(/[A-Za-z0-9_+-]+)*)';
const TIME_TEXT: Readonly<Record<TimeKind, string>> = {
  date: DATE_TEXT,
  time: CLOCK_TEXT,
  datetime: `${DATE_TEXT}([ T]${CLOCK_TEXT})?`,
  timestamp: `${DATE_TEXT}([ T]${CLOCK_TEXT})?(${ZONE_TEXT})?`,
};

function timeTextPattern(kind: TimeKind): string {
  return `\\s*(${TIME_TEXT[kind]})\\s*`;
}

/** Whether BigQuery reads this text as a value of the kind (a typed literal's). */
export function isTimeText(kind: TimeKind, text: string): boolean {
  return new RegExp(`^${timeTextPattern(kind)}$`).test(text);
}

/**
 * A STRING cast to a DATE, TIME, DATETIME or TIMESTAMP (`duckType`), an error (NULL for
 * SAFE_CAST) where BigQuery's canonical text does not read it, as BigQuery's cast raises one.
 */
export function checkedTimeCast(kind: TimeKind, value: string, duckType: string, safe: boolean, refuse: (what: string) => never): string {
  const s = repeatable(value, refuse);
  const invalid = safe ? `CAST(NULL AS ${duckType})` : `CAST(CAST(CAST('Invalid ${kind} string: ' || ${s} AS BIGINT) AS VARCHAR) AS ${duckType})`;
  return `(CASE WHEN regexp_full_match(${s}, '${timeTextPattern(kind)}') OR ${s} IS NULL THEN ${safe ? 'TRY_CAST' : 'CAST'}(${s} AS ${duckType}) ELSE ${invalid} END)`;
}
