/**
 * The format models of `CAST(x AS STRING FORMAT '...')` (GoogleSQL's "Format clause for CAST"),
 * which are not FORMAT_DATE's %-elements: `YYYY-MM-DD HH24:MI:SS`, `Day`, `"text"`. A DATE,
 * DATETIME, TIME or TIMESTAMP written with one becomes DuckDB SQL, element by element, as
 * ZetaSQL's reference implementation writes it: elements are read by the longest name that
 * matches (`MONTH` before `MON` before `MM`), case-insensitively; a name's case decides the case
 * of the words it writes (`DAY` THURSDAY, `Day` Thursday, `day` thursday); `FFn` cuts the
 * fraction to n digits (it does not round); `YYY` and shorter keep the year's last digits.
 *
 * Only a literal format model is compiled, so every element is checked before anything runs; an
 * element BigQuery would reject for the type (`HH24` of a DATE), and the ones it accepts and
 * cannery does not write (`IYYY`, `RM`, `J`, `CC`, `Q`, `IW`, `AD`, `SP`, `FM`...), are refused
 * by name.
 */
import { quoteString } from './quote.js';
import { repeatable } from './semantics.js';
import { UnsupportedFormat, type TimeKind } from './time-formats.js';

type Category = 'literal' | 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'meridian' | 'zone' | 'other';

/** Element names (upper case) with their category; the longest that matches is read. */
const ELEMENTS: Readonly<Record<string, Category>> = {
  YYYY: 'year', YYY: 'year', YY: 'year', Y: 'year', RRRR: 'year', RR: 'year',
  MM: 'month', MON: 'month', MONTH: 'month',
  D: 'day', DD: 'day', DDD: 'day', DAY: 'day', DY: 'day',
  HH: 'hour', HH12: 'hour', HH24: 'hour',
  MI: 'minute',
  SS: 'second', SSSSS: 'second',
  ...Object.fromEntries(Array.from({ length: 12 }, (_, index) => [`FF${index + 1}`, 'second' as const])),
  AM: 'meridian', PM: 'meridian', 'A.M.': 'meridian', 'P.M.': 'meridian',
  TZH: 'zone', TZM: 'zone',
  // Read (so that a format model splits as BigQuery splits it) and refused when written.
  'Y,YYY': 'other', IYYY: 'other', IYY: 'other', IY: 'other', I: 'other', SYYYY: 'other', YEAR: 'other', SYEAR: 'other',
  RM: 'other', J: 'other', CC: 'other', SCC: 'other', Q: 'other', IW: 'other', WW: 'other', W: 'other',
  AD: 'other', BC: 'other', 'A.D.': 'other', 'B.C.': 'other', SP: 'other', TH: 'other', SPTH: 'other', THSP: 'other', FM: 'other',
};
const NAMES = Object.keys(ELEMENTS).sort((a, b) => b.length - a.length);
const SIMPLE_LITERALS = new Set(['-', '.', '/', ',', "'", ';', ':']);

/** The categories each type may write (a TIMESTAMP any). */
const ALLOWED: Readonly<Record<Exclude<TimeKind, 'timestamp'>, readonly Category[]>> = {
  date: ['literal', 'year', 'month', 'day'],
  time: ['literal', 'hour', 'minute', 'second', 'meridian'],
  datetime: ['literal', 'year', 'month', 'day', 'hour', 'minute', 'second', 'meridian'],
};

interface Element {
  /** Upper case for an element, the text itself for a literal. */
  name: string;
  /** As written in the format model (its case sets the output's). */
  written: string;
  category: Category;
}

/** The format model's elements, as BigQuery reads them. */
export function castFormatElements(format: string): Element[] {
  const elements: Element[] = [];
  const upper = format.toUpperCase();
  let at = 0;
  while (at < format.length) {
    const char = format[at]!;
    if (SIMPLE_LITERALS.has(char)) {
      elements.push({ name: char, written: char, category: 'literal' });
      at += 1;
    } else if (char === ' ') {
      let end = at;
      while (format[end] === ' ') end += 1;
      elements.push({ name: format.slice(at, end), written: format.slice(at, end), category: 'literal' });
      at = end;
    } else if (char === '"') {
      let text = '';
      let end = at + 1;
      for (; end < format.length && format[end] !== '"'; end += 1) {
        if (format[end] === '\\') {
          end += 1;
          if (format[end] !== '\\' && format[end] !== '"') throw new UnsupportedFormat(`a format model with the escape \\${format[end] ?? ''} in quoted text (an error in BigQuery)`);
        }
        text += format[end];
      }
      if (end >= format.length) throw new UnsupportedFormat('a format model with an unclosed " (an error in BigQuery)');
      elements.push({ name: text, written: text, category: 'literal' });
      at = end + 1;
    } else {
      const name = NAMES.find((candidate) => upper.startsWith(candidate, at));
      if (name === undefined) throw new UnsupportedFormat(`a format model with ${JSON.stringify(format.slice(at, at + 8))}, which is no format element (an error in BigQuery)`);
      elements.push({ name, written: format.slice(at, at + name.length), category: ELEMENTS[name]! });
      at += name.length;
    }
  }
  return elements;
}

/** How an element's case sets the case of the words it writes (ZetaSQL's casing rules). */
function casing(element: Element): (sql: string) => string {
  const [first = '', second = ''] = element.written;
  if (first !== first.toUpperCase()) return (sql) => `lower(${sql})`;
  if (element.category === 'meridian' || element.written.length === 1) return (sql) => `upper(${sql})`;
  if (second !== second.toUpperCase()) return (sql) => sql;
  return (sql) => `upper(${sql})`;
}

export interface CastFormatValue {
  /** The civil date and time to write, a DuckDB TIMESTAMP. */
  local: string;
  /** For a TIMESTAMP, the instant, a TIMESTAMPTZ (`TZH`, `TZM`). */
  instant?: string | undefined;
  /** The time zone, when a literal: UTC's offset is written without computing. */
  zone?: string | undefined;
  refuse(what: string): never;
}

/** DuckDB SQL writing `value` (of `kind`) with a CAST format model. */
export function castFormatSql(format: string, kind: TimeKind, value: CastFormatValue): string {
  const local = () => repeatable(value.local, value.refuse);
  const strftime = (spec: string) => `strftime(${local()}, '${spec}')`;
  const padded = (sql: string, width: number) => `lpad(CAST(${sql} AS VARCHAR), ${width}, '0')`;
  const offsetMinutes = () => repeatable(`CAST(round((epoch(${local()}) - epoch(${repeatable(value.instant!, value.refuse)})) / 60) AS BIGINT)`, value.refuse);
  const utc = value.zone?.toUpperCase() === 'UTC';
  const pieces: string[] = [];
  for (const element of castFormatElements(format)) {
    if (kind !== 'timestamp' && !ALLOWED[kind].includes(element.category) && element.category !== 'other') {
      throw new UnsupportedFormat(`format element ${element.written} for a ${kind.toUpperCase()} (an error in BigQuery: it has no ${element.category})`);
    }
    const cased = casing(element);
    switch (element.name) {
      case 'YYYY':
      case 'RRRR':
        pieces.push(padded(`year(${local()})`, 4));
        break;
      case 'YYY':
        pieces.push(padded(`year(${local()}) % 1000`, 3));
        break;
      case 'YY':
      case 'RR':
        pieces.push(padded(`year(${local()}) % 100`, 2));
        break;
      case 'Y':
        pieces.push(`CAST(year(${local()}) % 10 AS VARCHAR)`);
        break;
      case 'MM':
        pieces.push(strftime('%m'));
        break;
      case 'MON':
        pieces.push(cased(strftime('%b')));
        break;
      case 'MONTH':
        pieces.push(cased(strftime('%B')));
        break;
      case 'D':
        pieces.push(`CAST(dayofweek(${local()}) + 1 AS VARCHAR)`);
        break;
      case 'DD':
        pieces.push(strftime('%d'));
        break;
      case 'DDD':
        pieces.push(strftime('%j'));
        break;
      case 'DAY':
        pieces.push(cased(strftime('%A')));
        break;
      case 'DY':
        pieces.push(cased(strftime('%a')));
        break;
      case 'HH':
      case 'HH12':
        pieces.push(strftime('%I'));
        break;
      case 'HH24':
        pieces.push(strftime('%H'));
        break;
      case 'MI':
        pieces.push(strftime('%M'));
        break;
      case 'SS':
        pieces.push(strftime('%S'));
        break;
      case 'SSSSS':
        pieces.push(padded(`hour(${local()}) * 3600 + minute(${local()}) * 60 + second(${local()})`, 5));
        break;
      case 'AM':
      case 'PM':
        pieces.push(cased(`(CASE WHEN hour(${local()}) >= 12 THEN 'PM' ELSE 'AM' END)`));
        break;
      case 'A.M.':
      case 'P.M.':
        pieces.push(cased(`(CASE WHEN hour(${local()}) >= 12 THEN 'P.M.' ELSE 'A.M.' END)`));
        break;
      case 'TZH': {
        if (utc) {
          pieces.push(quoteString('+00'));
          break;
        }
        const minutes = offsetMinutes();
        pieces.push(`(CASE WHEN ${minutes} < 0 THEN '-' ELSE '+' END || ${padded(`abs(${minutes}) // 60`, 2)})`);
        break;
      }
      case 'TZM':
        pieces.push(utc ? quoteString('00') : padded(`abs(${offsetMinutes()}) % 60`, 2));
        break;
      default: {
        const digits = /^FF(\d+)$/.exec(element.name)?.[1];
        if (element.category === 'literal') pieces.push(quoteString(element.name));
        else if (digits !== undefined && Number(digits) <= 9) {
          const micros = strftime('%f');
          pieces.push(Number(digits) <= 6 ? `left(${micros}, ${digits})` : `(${micros} || '${'0'.repeat(Number(digits) - 6)}')`);
        } else throw new UnsupportedFormat(`format element ${element.written}`);
      }
    }
  }
  if (pieces.length === 0) return `(CASE WHEN ${local()} IS NOT NULL THEN '' END)`;
  // Literals alone still give NULL for a NULL value.
  const text = pieces.length === 1 ? pieces[0]! : `(${pieces.join(' || ')})`;
  return pieces.every((piece) => piece.startsWith("'")) ? `(CASE WHEN ${local()} IS NOT NULL THEN ${text} END)` : text;
}
