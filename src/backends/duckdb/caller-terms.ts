/**
 * A DuckDB error in the caller's terms. DuckDB words its errors about the SQL it ran, the
 * translation of the caller's: a host function by its registered name (`cannery_edit_distance`),
 * DuckDB's own helpers a rendering calls (`strlen`, `epoch_us`), and DuckDB's types, a STRUCT
 * spelled out field by field (a log source's `metadata` is some 3,000 characters of it). The
 * caller wrote BigQuery: a function is named as BigQuery names it, or not at all where the caller
 * never wrote it, and a type is GoogleSQL's (STRING, INT64, ARRAY<...>, STRUCT<...>), a long
 * STRUCT cut short.
 */
import { FUNCTIONS } from '../../sql/language.js';
import { calledAs, HOST_FUNCTION_PREFIX, HOST_FUNCTIONS, type HostFunctionName } from '../../sql/dialects/duckdb/host-functions.js';

/** DuckDB's scalar type names (and its literals' pseudo-types) -> GoogleSQL's. */
const SCALARS: Readonly<Record<string, string>> = {
  BIGINT: 'INT64',
  INTEGER: 'INT64',
  SMALLINT: 'INT64',
  TINYINT: 'INT64',
  HUGEINT: 'INT64',
  UBIGINT: 'INT64',
  UINTEGER: 'INT64',
  USMALLINT: 'INT64',
  UTINYINT: 'INT64',
  UHUGEINT: 'INT64',
  INT64: 'INT64',
  INT32: 'INT64',
  INT16: 'INT64',
  INT8: 'INT64',
  INTEGER_LITERAL: 'INT64',
  DOUBLE: 'FLOAT64',
  FLOAT: 'FLOAT64',
  VARCHAR: 'STRING',
  STRING_LITERAL: 'STRING',
  UUID: 'STRING',
  BOOLEAN: 'BOOL',
  BLOB: 'BYTES',
  DATE: 'DATE',
  TIME: 'TIME',
  INTERVAL: 'INTERVAL',
  JSON: 'JSON',
  // An instant is BigQuery's TIMESTAMP; DuckDB's zone-less TIMESTAMP is a civil time, a DATETIME.
  TIMESTAMPTZ: 'TIMESTAMP',
  TIMESTAMP: 'DATETIME',
  TIMESTAMP_S: 'DATETIME',
  TIMESTAMP_MS: 'DATETIME',
  TIMESTAMP_NS: 'DATETIME',
};

const WITH_TIME_ZONE = 'TIMESTAMP WITH TIME ZONE';

/** Fields of a STRUCT written out before the rest is cut short; a STRUCT inside one is `STRUCT<...>`. */
const FIELDS_SHOWN = 4;

type Type = { scalar: string } | { array: Type } | { fields: [string, Type][] };

/** What sticky `pattern` matches at `at` of `text`, without copying the text's rest (a message may be long). */
function matchAt(pattern: RegExp, text: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(text);
}

const WORD = /[A-Z][A-Z0-9_]*/y;
const DECIMAL = /DECIMAL(\(\d+, ?\d+\))?/y;
const ARRAY_SUFFIX = /\[\d*\]/y;
const FIELD_NAME = /(?:"((?:[^"]|"")*)"|([A-Za-z_][A-Za-z0-9_]*)) /y;
const WORD_CHARACTER = /[A-Za-z0-9_]/;

/** A DuckDB type written at `start` of `text`, and where it ends; undefined where none starts. */
function readType(text: string, start: number): { type: Type; end: number } | undefined {
  let type: Type;
  let at: number;
  const word = matchAt(WORD, text, start)?.[0];
  if (word === undefined) return undefined;
  if (text.startsWith(WITH_TIME_ZONE, start)) {
    type = { scalar: 'TIMESTAMP' };
    at = start + WITH_TIME_ZONE.length;
  } else if (word === 'STRUCT' && text[start + word.length] === '(') {
    const fields = readFields(text, start + word.length + 1);
    if (!fields) return undefined;
    type = { fields: fields.fields };
    at = fields.end;
  } else if (word === 'DECIMAL') {
    const precision = matchAt(DECIMAL, text, start)![0];
    type = { scalar: 'NUMERIC' };
    at = start + precision.length;
  } else if (SCALARS[word] !== undefined) {
    type = { scalar: SCALARS[word] };
    at = start + word.length;
  } else {
    return undefined;
  }
  if (WORD_CHARACTER.test(text[at] ?? '')) return undefined;
  for (let suffix = matchAt(ARRAY_SUFFIX, text, at); suffix; suffix = matchAt(ARRAY_SUFFIX, text, at)) {
    type = { array: type };
    at += suffix[0].length;
  }
  return { type, end: at };
}

/** `name TYPE, ...)` of a STRUCT, names bare or double-quoted; undefined when any part is not one. */
function readFields(text: string, start: number): { fields: [string, Type][]; end: number } | undefined {
  const fields: [string, Type][] = [];
  let at = start;
  while (text[at] !== ')') {
    const name = matchAt(FIELD_NAME, text, at);
    if (!name) return undefined;
    const field = readType(text, at + name[0].length);
    if (!field) return undefined;
    fields.push([name[1]?.replaceAll('""', '"') ?? name[2]!, field.type]);
    at = field.end;
    if (text.startsWith(', ', at)) at += 2;
    else if (text[at] !== ')') return undefined;
  }
  return { fields, end: at + 1 };
}

function googleSql(type: Type, depth = 0): string {
  if ('scalar' in type) return type.scalar;
  if ('array' in type) return `ARRAY<${googleSql(type.array, depth)}>`;
  if (depth > 0) return 'STRUCT<...>';
  const shown = type.fields.slice(0, FIELDS_SHOWN).map(([name, field]) => `${/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `\`${name}\``} ${googleSql(field, depth + 1)}`);
  const more = type.fields.length - shown.length;
  return `STRUCT<${[...shown, ...(more > 0 ? [`... ${more} more`] : [])].join(', ')}>`;
}

/**
 * `text` with every DuckDB type written in it as GoogleSQL's. What is quoted is a value (or a
 * name) and stays as it is: `Could not convert string 'VARCHAR'` keeps the caller's 'VARCHAR'.
 */
export function inGoogleSqlTypes(text: string): string {
  let out = '';
  let at = 0;
  while (at < text.length) {
    const char = text[at]!;
    const wordBefore = WORD_CHARACTER.test(text[at - 1] ?? '');
    // A quote after a letter is an apostrophe ("can't"), not the start of a value.
    if ((char === "'" || char === '"') && !wordBefore) {
      const end = closingQuote(text, char, at + 1);
      out += text.slice(at, end);
      at = end;
      continue;
    }
    const type = wordBefore ? undefined : readType(text, at);
    if (type) {
      out += googleSql(type.type);
      at = type.end;
    } else {
      out += char;
      at += 1;
    }
  }
  return out;
}

/**
 * Just past the quote that closes a value opened before `from`: one not followed by a letter, so
 * an apostrophe inside the value (`'the query's'`) does not end it; the end of the text if none.
 */
function closingQuote(text: string, quote: string, from: number): number {
  for (let at = text.indexOf(quote, from); at !== -1; at = text.indexOf(quote, at + 1)) {
    if (!WORD_CHARACTER.test(text[at + 1] ?? '')) return at + 1;
  }
  return text.length;
}

/**
 * The types in a signature DuckDB quotes (`INTEGER_LITERAL, STRUCT(a VARCHAR)[]`), each in
 * GoogleSQL's words and whether it is a literal's, which DuckDB casts more freely.
 */
function signatureTypes(text: string): { type: string; literal: boolean }[] | undefined {
  const types: { type: string; literal: boolean }[] = [];
  let at = 0;
  while (at < text.length) {
    const type = readType(text, at);
    if (!type) return undefined;
    types.push({ type: googleSql(type.type), literal: /^(?:[A-Z]+_LITERAL|DECIMAL)\b/.test(text.slice(at, type.end)) });
    at = type.end;
    if (text.startsWith(', ', at)) at += 2;
    else if (at < text.length) return undefined;
  }
  return types;
}

const HOST_TYPES: Readonly<Record<string, string>> = { VARCHAR: 'STRING', BLOB: 'BYTES', BIGINT: 'INT64', BOOLEAN: 'BOOL', DOUBLE: 'FLOAT64' };

/** Whether DuckDB would take an argument of GoogleSQL type `given` where `wanted` is declared. */
function takes(wanted: string, given: string, literal: boolean): boolean {
  if (given === wanted || given === 'NULL') return true;
  // A numeric literal fits any numeric parameter; an INT64 widens to a FLOAT64.
  return (given === 'INT64' && wanted === 'FLOAT64') || (literal && given === 'NUMERIC' && (wanted === 'INT64' || wanted === 'FLOAT64'));
}

/**
 * What to say of a call DuckDB could not bind: the BigQuery function the caller wrote (a host
 * function's, or one of BigQuery's own that DuckDB has too), or none for a helper of a rendering,
 * which the caller never wrote; and the argument's type that does not fit, where that is known.
 */
function noSignature(name: string, rawTypes: string): string {
  const types = signatureTypes(rawTypes);
  const listed = types ? ` for argument types: ${types.map(({ type }) => type).join(', ')}` : '';
  const host = name.slice(HOST_FUNCTION_PREFIX.length);
  if (name.startsWith(HOST_FUNCTION_PREFIX) && isHostFunction(host)) {
    const wanted = HOST_FUNCTIONS[host].parameters.map((type) => HOST_TYPES[type] ?? inGoogleSqlTypes(type));
    const misfit = types?.findIndex(({ type, literal }, index) => wanted[index] !== undefined && !takes(wanted[index], type, literal)) ?? -1;
    if (misfit >= 0) return `No matching signature for function ${calledAs(host)}: argument ${misfit + 1} is ${types![misfit]!.type}, where it takes ${wanted[misfit]}`;
    return `No matching signature for function ${calledAs(host)} for the types of its arguments`;
  }
  if (/^[^A-Za-z_]+$/.test(name)) return `No matching signature for operator ${name}${listed}`;
  if (FUNCTIONS.has(name.toLowerCase())) return `No matching signature for function ${name.toUpperCase()}${listed}`;
  // A helper of a rendering: the caller wrote another function, which the error cannot tell.
  return `No matching signature${listed} (a function of the query was given an argument of a type it does not take)`;
}

function isHostFunction(name: string): name is HostFunctionName {
  return Object.hasOwn(HOST_FUNCTIONS, name);
}

/** DuckDB's two ways of saying a call has no signature for its arguments' types. */
const NO_FUNCTION_MATCHES = /No function matches the given name and argument types '([^'(]*)\((.*)\)'\. You might need to add explicit type casts\./;
const NO_BEST_CANDIDATE = /Could not choose a best candidate function for the function call "([^"(]*)\((.*)\)"\. In order to select one, please add explicit type casts\./;

/** A host function's registered name anywhere else in a message. */
const HOST_NAME = new RegExp(`\\b${HOST_FUNCTION_PREFIX}([a-z0-9_]+)`, 'g');

/**
 * DuckDB's overflow of INT64 arithmetic (`+ - *`, negation, ABS), which BigQuery raises as well,
 * in BigQuery's words: `int64 overflow: 9223372036854775807 + 1`.
 */
const INT64_OVERFLOWS: readonly [RegExp, (...parts: string[]) => string][] = [
  [/^Out of Range Error: Overflow in (?:addition|subtraction|multiplication) of INT64 \((.*)\)!$/, (operation) => `int64 overflow: ${operation}`],
  [/^Out of Range Error: Overflow in negation of (?:numeric value|integer)!?$/, () => 'int64 overflow: the negation of the INT64 minimum'],
  [/^Out of Range Error: Overflow on abs\((.*)\)$/, (value) => `int64 overflow: ABS(${value})`],
];

/** One line of a DuckDB error, in the caller's terms. */
export function inCallerTerms(message: string): string {
  for (const [pattern, words] of INT64_OVERFLOWS) {
    const overflow = pattern.exec(message);
    if (overflow) return words(...overflow.slice(1));
  }
  const signature = NO_FUNCTION_MATCHES.exec(message) ?? NO_BEST_CANDIDATE.exec(message);
  const rewritten = signature ? message.replace(signature[0], noSignature(signature[1]!, signature[2]!)) : inGoogleSqlTypes(message);
  return rewritten.replace(HOST_NAME, (whole, name: string) => (isHostFunction(name) ? calledAs(name) : whole));
}
