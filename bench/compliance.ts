/**
 * cannery measured against ZetaSQL's compliance tests (google/zetasql,
 * zetasql/compliance/testdata/*.test): GoogleSQL queries with known answers. Each case BigQuery can
 * run is sent as sandbox SQL to `logs.all`, through the service in this process as `serve` opens it
 * (compiled on the sandbox threads, run on the embedded DuckDB, encoded to the wire), and its answer
 * is compared, typed, with the one the file gives. A measurement, not a test: it needs the suite.
 *
 *   git clone --depth 1 https://github.com/google/zetasql /tmp/zetasql
 *   npm run bench:compliance -- --testdata /tmp/zetasql/zetasql/compliance/testdata --out /tmp/compliance.json
 *
 * `--dist DIR` measures another build's dist/ (its own endpoints/ beside it); `--only NAME` the
 * files whose name holds NAME. Prints counts per class and per file; `--out` gets every case not
 * answered as expected (refused, answered differently, answered where an error was expected,
 * failed where an answer was expected, crashed): name, query, expected, ours.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { describeMachine, DIST, markdownTable } from './support.js';

// ---------------------------------------------------------------------------------------------
// The suite's files

/**
 * Cases that need a feature BigQuery lacks: ZetaSQL's engines enable them, BigQuery's does not, so
 * their answers say nothing about BigQuery's. Where unsure, a feature is kept and its answers speak.
 */
const SKIPPED_FEATURES: Record<string, string> = {
  SQL_GRAPH: 'graph queries (GQL): no BigQuery syntax',
  DIFFERENTIAL_PRIVACY: 'differential privacy needs privacy-unit options over tables with noise: no known answer',
  ANONYMIZATION: 'anonymization: ZetaSQL-only syntax',
  MAP_TYPE: 'MAP: no BigQuery type',
  UUID_TYPE: 'UUID: no BigQuery type',
  PROTO: 'protocol buffers: not in BigQuery',
  ENUM: 'enums: protocol buffers, not in BigQuery',
  ENCRYPTION: 'AEAD keysets are random: no known answer',
  TIMESTAMP_NANOS: 'nanosecond timestamps: BigQuery keeps microseconds',
  TIMESTAMP_PICOS: 'picosecond timestamps: BigQuery keeps microseconds',
  TEMPLATE_FUNCTIONS: 'templated SQL functions: DDL',
  CREATE_TABLE_FUNCTION: 'table functions: DDL',
  TABLE_VALUED_FUNCTIONS: 'table functions: DDL',
  DML: 'DML: not a query',
  DISALLOW_PRIMARY_KEY_UPDATES: 'DML: not a query',
  DISALLOW_NULL_PRIMARY_KEYS: 'DML: not a query',
  NESTED_UPDATE_DELETE_WITH_OFFSET: 'DML: not a query',
  CORRELATED_REFS_IN_NESTED_DML: 'DML: not a query',
  ENABLE_MEASURES: 'measures: not in BigQuery',
  MULTILEVEL_AGGREGATION: 'multi-level aggregation: not in BigQuery',
  BETWEEN_UINT64_INT64: 'UINT64: no BigQuery type',
  REPLACE_FIELDS: 'REPLACE_FIELDS: protocol buffers',
  BRACED_PROTO_CONSTRUCTORS: 'protocol buffers',
  ARRAY_EQUALITY: 'BigQuery refuses = and IN on ARRAYs: not comparable',
  ARRAY_ORDERING: 'BigQuery refuses ORDER BY, MIN and MAX of ARRAYs: not orderable',
  // BigQuery's function list (cloud.google.com/bigquery/docs/reference/standard-sql/functions-all)
  // has no function that takes a lambda (ARRAY_FILTER, ARRAY_TRANSFORM, APPLY are Spanner's and
  // Bigtable's), no ARRAY_ZIP, and its query syntax's UNNEST takes one array.
  INLINE_LAMBDA_ARGUMENT: 'lambda arguments (x -> ...): no BigQuery function takes one',
  SAFE_FUNCTION_CALL_WITH_LAMBDA_ARGS: 'lambda arguments (x -> ...): no BigQuery function takes one',
  ARRAY_ZIP: 'ARRAY_ZIP: not a BigQuery function',
  MULTIWAY_UNNEST: 'UNNEST of several arrays: BigQuery UNNEST takes one',
};

/**
 * Functions BigQuery has not (cloud.google.com/bigquery/docs/reference/standard-sql/functions-all
 * lists none of them; ZetaSQL has them for Spanner, Bigtable or no product). A case calling one is
 * skipped whatever its features say: most of them have no feature of their own.
 */
const NON_BIGQUERY_FUNCTION =
  /\b(RADIANS|DEGREES|FLATTEN|SPLIT_SUBSTR|NEXT_DAY|LCASE|UCASE|REGEXP_MATCH|APPLY|ARRAY_(IS_DISTINCT|(FIRST|LAST|REMOVE_FIRST|REMOVE_LAST)_N|OFFSETS?|FIND(_ALL)?|ZIP|MIN|MAX|SUM|AVG|FILTER|TRANSFORM|INCLUDES(_ANY|_ALL)?))\s*\(/i;

/** Types the queries cast to or the tables hold that BigQuery has not (DOUBLE is FLOAT64's ZetaSQL name, FLOAT is FLOAT32). */
const NON_BIGQUERY_TYPE = /\b(U?INT32|UINT64|DOUBLE|FLOAT|ENUM|PROTO)\b|\bNEW\s+\w+\.|zetasql_test__/i;
/** The same, in the answer's printed type. */
const NON_BIGQUERY_RESULT = /\b(U?INT32|UINT64|FLOAT|PROTO|ENUM|UUID|MAP|GRAPH_\w+)\b|<[\w.]+\.\w+>/;

interface Table {
  name: string;
  select: string;
  /** Why a case that reads it is skipped, if one is. */
  skip?: string;
}

interface Case {
  file: string;
  name: string;
  /** The query as BigQuery would be sent it: the tables it reads as CTEs ahead. */
  sql: string;
  expected: string;
}

type SkipReason = string;

/** One file's cases: those kept, and why each other one was skipped. */
function readCases(file: string, text: string): { cases: Case[]; skipped: SkipReason[] } {
  const cases: Case[] = [];
  const skipped: SkipReason[] = [];
  const tables = new Map<string, Table>();
  let defaults: string[] = [];
  let index = 0;
  for (const block of text.split(/\n==\n/)) {
    const lines = block.split('\n');
    const options = new Map<string, string>();
    let body = 0;
    for (; body < lines.length; body++) {
      const line = lines[body]!.trim();
      if (line === '' || line.startsWith('#')) continue;
      const option = /^\[(default\s+)?([a-z_]+)(?:=(.*))?\]$/.exec(line);
      if (!option) break;
      if (option[1] !== undefined) {
        if (option[2] === 'required_features') defaults = splitList(option[3] ?? '');
        continue;
      }
      options.set(option[2]!, option[3] ?? '');
    }
    const sections = lines.slice(body).join('\n').split(/\n--\n/);
    if (sections.length < 2) continue;
    const query = sections[0]!.trim().replace(/;\s*$/, '');
    const expected = sections[1]!.trim();
    index++;
    const name = `${file.replace(/\.test$/, '')}:${options.get('name') ?? `#${index}`}`;
    const features = [...defaults, ...splitList(options.get('required_features') ?? '')];
    const lacking = features.map((feature) => Object.keys(SKIPPED_FEATURES).find((prefix) => feature.startsWith(prefix))).find((prefix) => prefix !== undefined);
    if (options.has('prepare_database')) {
      const created = /^CREATE\s+(?:TEMP\w*\s+)?TABLE\s+(\w+)\s*(?:\(([\s\S]*?)\))?\s*AS\s+([\s\S]+)$/i.exec(query);
      if (!created) continue;
      const select = created[2] === undefined ? created[3]! : namedSelect(created[3]!, readColumns(created[2]));
      const skip = lacking
        ? SKIPPED_FEATURES[lacking]
        : select === undefined
          ? 'a table whose column list this reader cannot read'
          : NON_BIGQUERY_TYPE.test(select)
            ? 'a table of types BigQuery lacks (INT32, UINT64, FLOAT, protos)'
            : undefined;
      tables.set(created[1]!.toLowerCase(), { name: created[1]!, select: select ?? '', ...(skip ? { skip } : {}) });
      continue;
    }
    if (lacking) {
      skipped.push(`feature ${lacking}: ${SKIPPED_FEATURES[lacking]}`);
      continue;
    }
    if (options.has('parameters') || /@\w/.test(query)) {
      skipped.push('query parameters');
      continue;
    }
    if (/\bcurrent_(date|datetime|time|timestamp)\b/i.test(query)) {
      skipped.push('an answer that depends on the day it runs');
      continue;
    }
    if (!/^\(*\s*(select|with)\b/i.test(stripComments(query))) {
      skipped.push('not a SELECT (DDL, DML, pipe syntax, a script)');
      continue;
    }
    const missing = NON_BIGQUERY_FUNCTION.exec(stripComments(query));
    if (missing) {
      skipped.push(`${missing[1]!.toUpperCase()}: not a BigQuery function`);
      continue;
    }
    if (NON_BIGQUERY_TYPE.test(query) || NON_BIGQUERY_RESULT.test(expected.split('\n')[0]!.split('[')[0]!)) {
      skipped.push('types BigQuery lacks (INT32, UINT64, FLOAT, protos, enums)');
      continue;
    }
    const read = tablesRead(query, tables);
    const blocked = read.find((table) => table.skip !== undefined);
    if (blocked) {
      skipped.push(`reads ${blocked.name}: ${blocked.skip}`);
      continue;
    }
    cases.push({ file, name, sql: withTables(query, read), expected });
  }
  return { cases, skipped };
}

interface Column {
  name: string;
  type: string;
  collate?: string;
}

/** A CREATE TABLE's column list: each column's name, type and collation, if it declares one. */
function readColumns(list: string): Column[] | undefined {
  const columns: Column[] = [];
  for (const part of splitTopLevel(list)) {
    const column = /^\s*(\w+)\s+([\s\S]+?)(?:\s+COLLATE\s+('[^']*'))?\s*$/i.exec(part);
    if (!column) return undefined;
    columns.push({ name: column[1]!, type: column[2]!, ...(column[3] ? { collate: column[3] } : {}) });
  }
  return columns;
}

/**
 * A CREATE TABLE (columns) AS SELECT as a query BigQuery can take as a CTE, which has no column
 * list: a first, empty operand of a UNION ALL names and types the columns (a set operation takes
 * its names from its first operand), and an outer SELECT gives the declared collations with
 * COLLATE(), BigQuery's function for it.
 */
function namedSelect(select: string, columns: Column[] | undefined): string | undefined {
  if (!columns) return undefined;
  const typed = columns.map((column) => `CAST(NULL AS ${column.type}) AS ${column.name}`).join(', ');
  const named = `SELECT ${typed} FROM UNNEST(ARRAY<INT64>[])\nUNION ALL\n${select}`;
  if (!columns.some((column) => column.collate !== undefined)) return named;
  const collated = columns.map((column) => (column.collate === undefined ? column.name : `COLLATE(${column.name}, ${column.collate}) AS ${column.name}`)).join(', ');
  return `SELECT ${collated} FROM (\n${named}\n)`;
}

/** Splits at the commas outside parentheses, angle brackets and quotes. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let at = 0; at < text.length; at++) {
    const char = text[at]!;
    if (quote) {
      if (char === '\\') at++;
      else if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"' || char === '`') quote = char;
    else if (char === '(' || char === '<') depth++;
    else if (char === ')' || char === '>') depth--;
    else if (char === ',' && depth === 0) {
      parts.push(text.slice(start, at));
      start = at + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.filter((part) => part.trim() !== '');
}

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

function stripComments(sql: string): string {
  return sql
    .replace(/^\s*(--|#)[^\n]*\n/gm, '')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .trim();
}

/** The file's tables the query names, and those they read, each after those it reads. */
function tablesRead(query: string, tables: Map<string, Table>): Table[] {
  const order: Table[] = [];
  const visit = (text: string, seen: Set<string>) => {
    for (const word of new Set(text.toLowerCase().match(/\b\w+\b/g) ?? [])) {
      const table = tables.get(word);
      if (!table || seen.has(word)) continue;
      seen.add(word);
      visit(table.select, seen);
      order.push(table);
    }
  };
  visit(query, new Set());
  return order;
}

/** The tables as CTEs ahead of the query, folded into its own WITH when it has one. */
function withTables(query: string, tables: Table[]): string {
  if (tables.length === 0) return query;
  const ctes = tables.map((table) => `${table.name} AS (\n${table.select}\n)`).join(',\n');
  const own = /^\s*with(\s+recursive)?\s+/i.exec(query);
  if (own) return `WITH${own[1] ?? ''} ${ctes},\n${query.slice(own[0].length)}`;
  return `WITH ${ctes}\n${query}`;
}

// ---------------------------------------------------------------------------------------------
// ZetaSQL's printed values, read by their printed type

type ZType = { kind: 'scalar'; name: string } | { kind: 'array'; element: ZType | undefined } | { kind: 'struct'; fields: { name?: string; type: ZType }[] } | { kind: 'range'; element: ZType };

type ZValue = null | { scalar: string; quoted?: 'string' | 'bytes' } | { array: ZValue[]; ordered: boolean; element?: ZType | undefined } | { struct: ZValue[] } | { json: unknown };

class Reader {
  at = 0;
  constructor(readonly text: string) {}
  skipSpace(): void {
    while (this.at < this.text.length && /\s/.test(this.text[this.at]!)) this.at++;
  }
  peek(word: string): boolean {
    this.skipSpace();
    return this.text.startsWith(word, this.at);
  }
  /** Case-sensitive: ZetaSQL prints SQL's NULL in capitals, JSON's null in lower case. */
  peekWord(word: string): boolean {
    this.skipSpace();
    return this.text.startsWith(word, this.at) && !/\w/.test(this.text[this.at + word.length] ?? '');
  }
  expect(word: string): void {
    if (!this.peek(word)) throw new Error(`expected "${word}" at ${this.at}: ${this.text.slice(this.at, this.at + 40)}`);
    this.at += word.length;
  }
  word(): string {
    this.skipSpace();
    const match = /^[\w.]+/.exec(this.text.slice(this.at));
    if (!match) throw new Error(`expected a word at ${this.at}: ${this.text.slice(this.at, this.at + 40)}`);
    this.at += match[0].length;
    return match[0];
  }
}

const TYPE_NAMES = new Set(['INT32', 'INT64', 'UINT32', 'UINT64', 'DOUBLE', 'FLOAT', 'STRING', 'BYTES', 'BOOL', 'DATE', 'DATETIME', 'TIME', 'TIMESTAMP', 'NUMERIC', 'BIGNUMERIC', 'JSON', 'INTERVAL', 'ARRAY', 'STRUCT', 'RANGE', 'GEOGRAPHY', 'UUID', 'TOKENLIST']);

function readType(reader: Reader): ZType {
  const name = reader.word().toUpperCase();
  if (name === 'ARRAY') {
    reader.expect('<');
    if (reader.peek('>')) return reader.expect('>'), { kind: 'array', element: undefined };
    const element = readType(reader);
    reader.expect('>');
    return { kind: 'array', element };
  }
  if (name === 'RANGE') {
    reader.expect('<');
    const element = readType(reader);
    reader.expect('>');
    return { kind: 'range', element };
  }
  if (name === 'STRUCT') {
    reader.expect('<');
    const fields: { name?: string; type: ZType }[] = [];
    while (!reader.peek('>')) {
      const start = reader.at;
      reader.skipSpace();
      if (reader.text[reader.at] === '`') {
        const end = reader.text.indexOf('`', reader.at + 1);
        const name = reader.text.slice(reader.at + 1, end);
        reader.at = end + 1;
        fields.push({ name, type: readType(reader) });
        if (reader.peek(',')) reader.expect(',');
        continue;
      }
      const first = reader.word();
      reader.skipSpace();
      const next = reader.text[reader.at];
      if (next === ',' || next === '>' || next === '<' || next === '(') {
        reader.at = start;
        fields.push({ type: readType(reader) });
      } else {
        // A name may hold spaces unquoted (`GROUPING SETS INT64`): it runs to the word before the type.
        const words = [first];
        for (;;) {
          const at = reader.at;
          const word = reader.word();
          reader.at = at;
          if (TYPE_NAMES.has(word.toUpperCase())) break;
          words.push(reader.word());
        }
        fields.push({ name: words.join(' '), type: readType(reader) });
      }
      if (reader.peek(',')) reader.expect(',');
    }
    reader.expect('>');
    return { kind: 'struct', fields };
  }
  // Parameterised types print their parameters: NUMERIC(10, 2), STRING(5).
  if (reader.peek('(')) while (reader.text[reader.at++] !== ')');
  return { kind: 'scalar', name };
}

function readValue(reader: Reader, type: ZType | undefined): ZValue {
  reader.skipSpace();
  if (reader.peekWord('NULL')) return (reader.at += 4), null;
  if (reader.peekWord('ARRAY')) {
    type = readType(reader);
    if (reader.peek('(')) {
      reader.expect('(');
      reader.expect('NULL');
      reader.expect(')');
      return null;
    }
  }
  if (type?.kind === 'array' || (type === undefined && reader.peek('['))) {
    reader.expect('[');
    let ordered = false;
    if (reader.peek('known order:')) (reader.at += 'known order:'.length), (ordered = true);
    else if (reader.peek('unknown order:')) reader.at += 'unknown order:'.length;
    const items: ZValue[] = [];
    while (!reader.peek(']')) {
      items.push(readValue(reader, type?.kind === 'array' ? type.element : undefined));
      if (reader.peek(',')) reader.expect(',');
    }
    reader.expect(']');
    return { array: items, ordered, element: type?.kind === 'array' ? type.element : undefined };
  }
  if (type?.kind === 'scalar' && type.name === 'JSON') return { json: JSON.parse(balanced(reader)) };
  if (type?.kind === 'struct' || (type === undefined && reader.peek('{'))) {
    reader.expect('{');
    const fields: ZValue[] = [];
    let field = 0;
    while (!reader.peek('}')) {
      fields.push(readValue(reader, type?.kind === 'struct' ? type.fields[field]?.type : undefined));
      field++;
      if (reader.peek(',')) reader.expect(',');
    }
    reader.expect('}');
    return { struct: fields };
  }
  if (type?.kind === 'range') {
    const start = reader.at;
    while (reader.text[reader.at] !== ')') reader.at++;
    reader.at++;
    return { scalar: reader.text.slice(start, reader.at) };
  }
  if (reader.peek('b"') || reader.peek("b'")) return reader.at++, { scalar: quoted(reader), quoted: 'bytes' };
  if (reader.peek('"') || reader.peek("'")) return { scalar: quoted(reader), quoted: 'string' };
  const start = reader.at;
  while (reader.at < reader.text.length && !',]}'.includes(reader.text[reader.at]!)) reader.at++;
  return { scalar: reader.text.slice(start, reader.at).trim() };
}

/** A JSON value as printed: up to its top-level end. */
function balanced(reader: Reader): string {
  reader.skipSpace();
  const start = reader.at;
  let depth = 0;
  for (; reader.at < reader.text.length; reader.at++) {
    const char = reader.text[reader.at]!;
    if (char === '"') {
      for (reader.at++; reader.text[reader.at] !== '"'; reader.at++) if (reader.text[reader.at] === '\\') reader.at++;
    } else if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') {
      if (depth === 0) break;
      depth--;
    } else if (char === ',' && depth === 0) break;
    if (depth === 0 && (char === '}' || char === ']' || char === '"')) {
      reader.at++;
      break;
    }
  }
  return reader.text.slice(start, reader.at).trim();
}

/** A quoted string with C escapes, as ZetaSQL prints one; bytes as latin-1 code units. */
function quoted(reader: Reader): string {
  const quote = reader.text[reader.at]!;
  const triple = reader.text.startsWith(quote.repeat(3), reader.at);
  reader.at += triple ? 3 : 1;
  let out = '';
  while (!reader.text.startsWith(triple ? quote.repeat(3) : quote, reader.at)) {
    const char = reader.text[reader.at++]!;
    if (char !== '\\') {
      out += char;
      continue;
    }
    const escape = reader.text[reader.at++]!;
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v', '\\': '\\', "'": "'", '"': '"', '`': '`', '?': '?' };
    if (escape in simple) out += simple[escape];
    else if (escape === 'x' || escape === 'X') out += String.fromCharCode(parseInt(take(reader, /^[0-9a-fA-F]{1,2}/), 16));
    else if (escape === 'u') out += String.fromCodePoint(parseInt(take(reader, /^[0-9a-fA-F]{4}/), 16));
    else if (escape === 'U') out += String.fromCodePoint(parseInt(take(reader, /^[0-9a-fA-F]{8}/), 16));
    else if (/[0-7]/.test(escape)) out += String.fromCharCode(parseInt(escape + take(reader, /^[0-7]{2}/), 8));
    else out += escape;
  }
  reader.at += triple ? 3 : 1;
  return out;
}

function take(reader: Reader, pattern: RegExp): string {
  const match = pattern.exec(reader.text.slice(reader.at))?.[0] ?? '';
  reader.at += match.length;
  return match;
}

interface Expected {
  columns: ZType[];
  rows: ZValue[][];
  ordered: boolean;
}

function readExpected(text: string): Expected {
  const reader = new Reader(text.replace(/^#.*$/gm, ''));
  const type = readType(reader);
  if (type.kind !== 'array' || type.element === undefined) throw new Error(`not a table: ${text.slice(0, 60)}`);
  const table = readValue(reader, type);
  if (table === null || !('array' in table)) throw new Error('no rows');
  // SELECT AS VALUE of a scalar: a table of one column.
  if (type.element.kind !== 'struct') return { columns: [type.element], ordered: table.ordered, rows: table.array.map((row) => [row]) };
  const columns = type.element.fields.map((field) => field.type);
  return { columns, ordered: table.ordered, rows: table.array.map((row) => (row !== null && 'struct' in row ? row.struct : [row])) };
}

// ---------------------------------------------------------------------------------------------
// Our wire values (docs/http.md) against them

/** ZetaSQL's default margin for floating point (zetasql/common/float_margin.h): 2^4 units in the last place. */
function floatsEqual(want: number, got: number): boolean {
  if (Number.isNaN(want) || Number.isNaN(got)) return Number.isNaN(want) && Number.isNaN(got);
  if (!Number.isFinite(want) || !Number.isFinite(got)) return want === got;
  if (want === got) return true;
  const larger = Math.max(Math.abs(want), Math.abs(got));
  const ulp = Number.EPSILON * 2 ** Math.max(-1022, Math.floor(Math.log2(larger)));
  return Math.abs(want - got) <= 16 * ulp;
}

function zetaDouble(text: string): number {
  const lower = text.toLowerCase();
  if (lower === 'nan' || lower === '-nan') return NaN;
  if (lower === 'inf' || lower === '+inf') return Infinity;
  if (lower === '-inf') return -Infinity;
  return Number(text);
}

function wireDouble(value: unknown): number {
  if (value === 'NaN') return NaN;
  if (value === 'Infinity') return Infinity;
  if (value === '-Infinity') return -Infinity;
  return Number(value);
}

/** A decimal as sign, digits without leading or trailing zeros, and the exponent of the last digit. */
function decimal(text: string): string {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!match) return text;
  let digits = (match[2] ?? '') + (match[3] ?? '');
  let exponent = Number(match[4] ?? 0) - (match[3] ?? '').length;
  digits = digits.replace(/^0+/, '');
  while (digits.endsWith('0')) (digits = digits.slice(0, -1)), exponent++;
  if (digits === '') return '0';
  return `${match[1] === '-' ? '-' : ''}${digits}e${exponent}`;
}

/** Microseconds since the epoch of a printed TIMESTAMP (`2001-01-01 00:00:00.5+00`). */
function timestampMicros(text: string): bigint | undefined {
  const match = /^(-?\d{4,})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:\.(\d+))?\s*(?:([+-])(\d\d)(?::?(\d\d))?|Z|UTC)?$/.exec(text.trim());
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction = '', sign, oh = '0', om = '0'] = match;
  // setUTCFullYear, not Date.UTC, which reads the years 0 to 99 as 1900 to 1999.
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  const days = BigInt(Math.round(date.getTime() / 86_400_000));
  const seconds = days * 86_400n + BigInt(Number(h) * 3600 + Number(mi) * 60 + Number(s)) - BigInt((sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60));
  return seconds * 1_000_000n + BigInt((fraction + '000000').slice(0, 6));
}

/** `00:00:00.500000` and `00:00:00.5` alike. */
function trimFraction(text: string): string {
  return text.replace(/(\.\d*?)0+(?=$|[^\d])/g, '$1').replace(/\.(?=$|[^\d])/g, '');
}

function latin1(text: string): Buffer {
  return Buffer.from(text, 'latin1');
}

/**
 * ZetaSQL's engines run the suite in the time zone America/Los_Angeles (or a file's
 * [default_time_zone]), BigQuery in UTC: a TIMESTAMP literal without a zone, a cast of one to
 * STRING or DATE, answer otherwise. An answer that differs only so is counted apart: compared again
 * with times that may differ by whole minutes up to two days (a zone's offset, and a day boundary
 * it moves) or by Los Angeles' local mean time, times of day by whole minutes, and timestamps'
 * text by any.
 */
let zoneLenient = false;
const MINUTE_US = 60_000_000n;
const DAY_US = 86_400_000_000n;

/** America/Los_Angeles' local mean time before 1883 (-7:52:58), the suite's zone's offset of its oldest timestamps. */
const LOS_ANGELES_LMT_US = (7n * 3600n + 52n * 60n + 58n) * 1_000_000n;

function zoneShift(difference: bigint): boolean {
  const magnitude = difference < 0n ? -difference : difference;
  return (magnitude % MINUTE_US === 0n || magnitude === LOS_ANGELES_LMT_US) && magnitude <= 2n * DAY_US;
}

function civilMicros(text: string): bigint | undefined {
  return timestampMicros(`${text.replace('T', ' ')}${/\d\d:\d\d/.test(text) ? '' : ' 00:00:00'}+00`);
}

/**
 * A text with each timestamp written with its offset inside it (`CONCAT(..., TIMESTAMP '...')`:
 * `...1999-12-31 23:59:59.999-08`) written as its instant in microseconds, so that the same instant
 * rendered in another zone compares equal.
 */
function instantsIn(text: string): string {
  return text.replace(/\d{4,}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d\d(?::?\d\d)?|Z)/g, (stamp) => `@${String(timestampMicros(stamp) ?? stamp)}`);
}

/**
 * The query with each TIMESTAMP literal that names no zone placed in the suite's zone
 * (`TIMESTAMP '2000-01-01 00:00:00'` -> `TIMESTAMP '2000-01-01 00:00:00 America/Los_Angeles'`), as
 * ZetaSQL's engines read it; undefined where there is none. An answer that differs, and is equal
 * when asked so, differs by the zone only (`FORMAT_TIMESTAMP('%y', TIMESTAMP '2000-01-01 00:00:00',
 * 'US/Eastern')` is "00" there and "99" in UTC).
 */
function inSuiteZone(sql: string): string | undefined {
  let zoned = false;
  const CIVIL = /^\d{4}-\d\d-\d\d(?:[ T]\d\d:\d\d(?::\d\d(?:\.\d+)?)?)?$/;
  const text = sql
    .replace(/\bTIMESTAMP\s*(['"])(\d{4}-\d\d-\d\d(?:[ T]\d\d:\d\d(?::\d\d(?:\.\d+)?)?)?)\1/gi, (_, quote: string, civil: string) => {
      zoned = true;
      return `TIMESTAMP ${quote}${atMidnight(civil)} ${SUITE_ZONE}${quote}`;
    })
    // A RANGE<TIMESTAMP> literal's bounds likewise (`'[2020-01-01, UNBOUNDED)'`).
    .replace(/\bRANGE\s*<\s*TIMESTAMP\s*>\s*(['"])\[([^,'"]*),([^)'"]*)\)\1/gi, (whole: string, quote: string, start: string, end: string) => {
      const bound = (text: string) => (CIVIL.test(text.trim()) ? ((zoned = true), `${atMidnight(text.trim())} ${SUITE_ZONE}`) : text.trim());
      return `RANGE<TIMESTAMP> ${quote}[${bound(start)}, ${bound(end)})${quote}`;
    });
  return zoned ? text : undefined;
}

const SUITE_ZONE = 'America/Los_Angeles';

/** A date alone with a time of day: the embedded engine reads no zone after a date alone. */
function atMidnight(civil: string): string {
  return /\d\d:\d\d/.test(civil) ? civil : `${civil} 00:00:00`;
}

/** Whether a RANGE as ZetaSQL prints it (`[2020-01-01, NULL)`) is not our wire's `{start, end}`, null for unbounded. */
function rangeMismatch(element: ZType, text: string, got: unknown): boolean {
  const bounds = /^\[\s*(.*?)\s*,\s*(.*?)\s*\)$/s.exec(text);
  if (!bounds || got === null || typeof got !== 'object' || Array.isArray(got)) return true;
  const value = got as Record<string, unknown>;
  if (Object.keys(value).join() !== 'start,end') return true;
  return [bounds[1]!, bounds[2]!].some((bound, index) => {
    const wire = index === 0 ? value.start : value.end;
    if (/^(NULL|UNBOUNDED)$/i.test(bound)) return wire !== null;
    return mismatch(element, { scalar: bound }, wire) !== undefined;
  });
}

/** Why `got` (our wire value) is not `want` (ZetaSQL's) of `type`, if it is not. */
function mismatch(type: ZType | undefined, want: ZValue, got: unknown): string | undefined {
  const differ = () => `${show(want)} != ${JSON.stringify(got)}`;
  if (want === null) {
    // A NULL array is [] on the wire, as BigQuery's REST API answers it.
    if (got === null || (type?.kind === 'array' && Array.isArray(got) && got.length === 0)) return undefined;
    return differ();
  }
  if ('array' in want) {
    if (!Array.isArray(got) || got.length !== want.array.length) return differ();
    const element = want.element ?? (type?.kind === 'array' ? type.element : undefined);
    if (want.ordered || want.array.length <= 1) {
      for (const [index, item] of want.array.entries()) {
        const problem = mismatch(element, item, got[index]);
        if (problem) return `[${index}] ${problem}`;
      }
      return undefined;
    }
    const left = [...got];
    for (const item of want.array) {
      const at = left.findIndex((candidate) => mismatch(element, item, candidate) === undefined);
      if (at === -1) return `no element matches ${show(item)} in ${JSON.stringify(got)}`;
      left.splice(at, 1);
    }
    return undefined;
  }
  if ('struct' in want) {
    if (got === null || typeof got !== 'object' || Array.isArray(got)) return differ();
    const values = Object.values(got);
    if (values.length !== want.struct.length) return differ();
    for (const [index, field] of want.struct.entries()) {
      const problem = mismatch(type?.kind === 'struct' ? type.fields[index]?.type : undefined, field, values[index]);
      if (problem) return `.${index} ${problem}`;
    }
    return undefined;
  }
  if ('json' in want) {
    const value = typeof got === 'string' ? safeJson(got) : got;
    return JSON.stringify(sortKeys(value)) === JSON.stringify(sortKeys(want.json)) ? undefined : differ();
  }
  if (got === null) return differ();
  if (type?.kind === 'range') return rangeMismatch(type.element, want.scalar, got) ? differ() : undefined;
  const text = want.scalar;
  const name = type?.kind === 'scalar' ? type.name : undefined;
  switch (name) {
    case 'INT64':
      return /^-?\d+$/.test(String(got)) && BigInt(String(got)) === BigInt(text) ? undefined : differ();
    case 'DOUBLE':
    case 'FLOAT64':
      return floatsEqual(zetaDouble(text), wireDouble(got)) ? undefined : differ();
    case 'NUMERIC':
    case 'BIGNUMERIC':
      return decimal(text) === decimal(String(got)) ? undefined : differ();
    case 'BOOL':
      return String(got) === text ? undefined : differ();
    case 'BYTES':
      return typeof got === 'string' && (Buffer.from(got, 'base64').equals(latin1(text)) || got === text) ? undefined : differ();
    case 'TIMESTAMP': {
      const micros = timestampMicros(text);
      if (micros === undefined || !/^-?\d+$/.test(String(got))) return differ();
      return BigInt(String(got)) === micros || (zoneLenient && zoneShift(BigInt(String(got)) - micros)) ? undefined : differ();
    }
    case 'DATE':
    case 'DATETIME': {
      if (zoneLenient) {
        const [left, right] = [civilMicros(text), civilMicros(String(got))];
        if (left !== undefined && right !== undefined && zoneShift(left - right)) return undefined;
      }
      return trimFraction(String(got).replace('T', ' ')) === trimFraction(text.replace('T', ' ')) ? undefined : differ();
    }
    case 'TIME':
      // A time of day in another zone differs by whole minutes: its seconds and fraction are the same.
      if (zoneLenient && /^\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(String(got)) && trimFraction(String(got)).slice(5) === trimFraction(text).slice(5)) return undefined;
      return trimFraction(String(got)) === trimFraction(text) ? undefined : differ();
    case 'INTERVAL':
      return trimFraction(String(got)) === trimFraction(text) ? undefined : differ();
    default:
      if (want.quoted === 'bytes') return typeof got === 'string' && Buffer.from(got, 'base64').equals(latin1(text)) ? undefined : differ();
      if (typeof got === 'number' || /^-?(\d+(\.\d+)?(e[+-]?\d+)?|nan|inf)$/i.test(text)) return floatsEqual(zetaDouble(text), wireDouble(got)) || decimal(text) === decimal(String(got)) ? undefined : differ();
      if (zoneLenient && [text, String(got)].every((value) => /^-?\d{4,}-\d\d-\d\d[ T]\d\d:\d\d/.test(value))) return undefined;
      if (zoneLenient && instantsIn(String(got)) === instantsIn(text)) return undefined;
      return String(got) === text || trimFraction(String(got)) === trimFraction(text) ? undefined : differ();
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}

function show(value: ZValue): string {
  if (value === null) return 'NULL';
  if ('array' in value) return `[${value.array.map(show).join(', ')}]`;
  if ('struct' in value) return `{${value.struct.map(show).join(', ')}}`;
  if ('json' in value) return JSON.stringify(value.json);
  return value.quoted ? JSON.stringify(value.scalar) : value.scalar;
}

/** Why our rows are not the expected ones, if they are not. */
function rowsDiffer(expected: Expected, rows: Record<string, unknown>[]): string | undefined {
  if (rows.length !== expected.rows.length) return `${rows.length} rows, expected ${expected.rows.length}`;
  const table: ZType = { kind: 'struct', fields: expected.columns.map((type) => ({ type })) };
  const wanted: ZValue = { array: expected.rows.map((row) => ({ struct: row })), ordered: expected.ordered };
  return mismatch({ kind: 'array', element: table }, wanted, rows);
}

// ---------------------------------------------------------------------------------------------
// Running them

const CLASSES = ['equal', 'error as expected', 'refused by name', 'error, answer expected', 'DIFFERENT', 'differs by the suite\'s time zone', 'answer, error expected', 'crash (5xx or not ours)', 'unreadable expectation'] as const;
type Class = (typeof CLASSES)[number];

interface Outcome {
  class: Class;
  detail?: string;
  answer?: unknown;
}

interface ServiceShape {
  resolve(name: string): unknown;
  query(endpoint: unknown, params: Iterable<[string, string]>): unknown;
  close(): Promise<void>;
  backend: { close(): Promise<void> };
}

/** The per-case bound: the service's own query timeout, and this past it for whatever does not stop. */
const QUERY_TIMEOUT_MS = 5_000;
const CASE_BOUND_MS = 20_000;

/** The service's answer to `sql` (the parsed body), within the per-case bound. */
async function ask(service: ServiceShape, endpoint: unknown, sql: string): Promise<unknown> {
  const asked = Promise.resolve(service.query(endpoint, [['project', 'compliance'], ['sql', sql]])) as Promise<{ body: Uint8Array }>;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${CASE_BOUND_MS} ms`)), CASE_BOUND_MS)));
  const outcome = await Promise.race([asked, bound]).finally(() => clearTimeout(timer));
  return JSON.parse(Buffer.from(outcome.body).toString('utf8'));
}

/** Why the answer to `sql` is not `expected`, compared leniently as to zones; an error is a difference. */
async function answerIn(service: ServiceShape, endpoint: unknown, sql: string, expected: Expected): Promise<string | undefined> {
  try {
    const rows = ((await ask(service, endpoint, sql)) as { result: Record<string, unknown>[] }).result;
    zoneLenient = true;
    return rowsDiffer(expected, rows);
  } catch (error) {
    return String((error as Error).message ?? error);
  } finally {
    zoneLenient = false;
  }
}

async function runCase(service: ServiceShape, endpoint: unknown, testCase: Case): Promise<Outcome> {
  const expectError = testCase.expected.startsWith('ERROR');
  let expected: Expected | undefined;
  if (!expectError) {
    try {
      // TYPEOF answers BigQuery's name of FLOAT64 where ZetaSQL's engines answer theirs.
      expected = readExpected(/\btypeof\s*\(/i.test(testCase.sql) ? testCase.expected.replace(/"DOUBLE"/g, '"FLOAT64"') : testCase.expected);
    } catch (error) {
      return { class: 'unreadable expectation', detail: (error as Error).message };
    }
  }
  let body: unknown;
  try {
    body = await ask(service, endpoint, testCase.sql);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message = String((error as Error).message ?? error);
    const ours = typeof code === 'string' && code !== 'internal';
    if (!ours) return { class: 'crash (5xx or not ours)', detail: `${String(code ?? (error as Error).name)}: ${message}` };
    if (expectError) return { class: 'error as expected', detail: `${code}: ${message}` };
    if (code === 'sandbox_violation') return { class: 'refused by name', detail: message };
    return { class: 'error, answer expected', detail: `${code}: ${message}` };
  }
  const rows = (body as { result: Record<string, unknown>[] }).result;
  if (expectError) return { class: 'answer, error expected', answer: rows };
  const problem = rowsDiffer(expected!, rows);
  if (problem === undefined) return { class: 'equal' };
  if (/time|date|zone/i.test(testCase.sql)) {
    // Asked again in the suite's zone first: equal then is the zone alone, exactly; the lenient
    // comparison after it can hide a real difference, so its cases say so.
    const suiteSql = inSuiteZone(testCase.sql);
    if (suiteSql !== undefined && (await answerIn(service, endpoint, suiteSql, expected!)) === undefined) {
      return { class: "differs by the suite's time zone", detail: `${problem} (equal with its TIMESTAMP literals in ${SUITE_ZONE})`, answer: rows };
    }
    zoneLenient = true;
    const zoned = rowsDiffer(expected!, rows);
    zoneLenient = false;
    if (zoned === undefined) return { class: "differs by the suite's time zone", detail: `${problem} (equal compared leniently only)`, answer: rows };
  }
  return { class: 'DIFFERENT', detail: problem, answer: rows };
}

/**
 * A refusal's message reduced to what it names, so that one construct's refusals count together:
 * the service's preamble dropped, quoted text and numbers blanked, cut at its first parenthesis.
 */
function refusalReason(message: string): string {
  // A syntax error is counted by the word the grammar stopped at, which names what it lacks.
  const syntax = /SQL syntax error at line \d+, column \d+: found ('[^']*'|"[^"]*"|[^,]+)/.exec(message);
  if (syntax) return `syntax error at ${syntax[1]}`;
  const named = message.replace(/^.*?(not supported|is refused|refused)[^:]*:\s*/i, '');
  return named
    .replace(/'[^']*'|"[^"]*"|`[^`]*`/g, '…')
    .replace(/\b\d+(\.\d+)?\b/g, 'N')
    .replace(/\s*\(.*$/, '')
    .slice(0, 120);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      testdata: { type: 'string' },
      dist: { type: 'string' },
      out: { type: 'string' },
      only: { type: 'string' },
    },
  });
  if (values.testdata === undefined) throw new Error('--testdata DIR: zetasql/compliance/testdata of a clone of https://github.com/google/zetasql');
  const dist = values.dist === undefined ? DIST : pathToFileURL(resolve(values.dist) + '/');
  const load = (path: string) => import(new URL(path, dist).href);
  const [{ openService }, { readSettings }] = await Promise.all([load('cli/open-service.js'), load('config/settings.js')]);

  const files = readdirSync(values.testdata)
    .filter((file) => file.endsWith('.test') && (values.only === undefined || file.includes(values.only)))
    .sort();
  const cases: Case[] = [];
  const skipped = new Map<string, number>();
  for (const file of files) {
    const read = readCases(file, readFileSync(join(values.testdata, file), 'utf8'));
    cases.push(...read.cases);
    for (const reason of read.skipped) skipped.set(reason, (skipped.get(reason) ?? 0) + 1);
  }

  // A small seeded file: logs.all's CTEs are not read by these queries, but the backend opens its tables.
  const dir = mkdtempSync(join(tmpdir(), 'cannery-compliance-'));
  const db = join(dir, 'compliance.duckdb');
  execFileSync(process.execPath, [new URL('cli.js', dist).pathname, 'seed', '--db', db, '--events', '100'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const env = { CANNERY_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS), CANNERY_DUCKDB_THREADS: '1', CANNERY_SANDBOX_THREADS: '1', CANNERY_LOG_LEVEL: 'warn' };
  const settings = { ...readSettings(env), dbPath: db, endpointsDir: new URL('../endpoints/', dist).pathname };
  const service = (await openService(settings)) as ServiceShape;
  const endpoint = service.resolve('logs.all');

  const perClass = new Map<Class, number>(CLASSES.map((name) => [name, 0]));
  const perFile = new Map<string, Map<Class, number>>();
  const report: (Case & Outcome)[] = [];
  // What the refusals name, most common first: where answering more would count most.
  const refusals = new Map<string, number>();
  const started = performance.now();
  for (const [index, testCase] of cases.entries()) {
    const outcome = await runCase(service, endpoint, testCase);
    perClass.set(outcome.class, perClass.get(outcome.class)! + 1);
    const counts = perFile.get(testCase.file) ?? new Map<Class, number>();
    counts.set(outcome.class, (counts.get(outcome.class) ?? 0) + 1);
    perFile.set(testCase.file, counts);
    // Every case not answered as expected, refusals included: what to work on next.
    if (outcome.class !== 'equal' && outcome.class !== 'error as expected') report.push({ ...testCase, ...outcome });
    if (outcome.class === 'refused by name') {
      const why = refusalReason(outcome.detail ?? '');
      refusals.set(why, (refusals.get(why) ?? 0) + 1);
    }
    if ((index + 1) % 250 === 0) process.stderr.write(`${index + 1}/${cases.length} cases\n`);
  }
  const seconds = (performance.now() - started) / 1000;
  await service.close();
  await service.backend.close();
  rmSync(dir, { recursive: true, force: true });

  const machine = describeMachine();
  const total = [...skipped.values()].reduce((sum, count) => sum + count, 0);
  console.log(`ZetaSQL compliance cases through logs.all's sandbox on ${new URL('.', dist).pathname}, ${machine.date}, ${machine.cores} cores, load ${machine.load}: ${cases.length} cases in ${seconds.toFixed(0)} s (${total} skipped).\n`);
  console.log(markdownTable(['class', 'cases'], CLASSES.map((name) => [name, String(perClass.get(name))])));
  console.log('\nSkipped:\n');
  console.log(markdownTable(['why', 'cases'], [...skipped].sort((a, b) => b[1] - a[1]).map(([why, count]) => [why, String(count)])));
  console.log('\nRefused by name, by what the refusal names (the 40 most common):\n');
  console.log(markdownTable(['refusal', 'cases'], [...refusals].sort((a, b) => b[1] - a[1]).slice(0, 40).map(([why, count]) => [why.replaceAll('|', '\\|'), String(count)])));
  console.log('\nPer file:\n');
  const short = ['equal', 'error ok', 'refused', 'error', 'DIFFERENT', 'zone', 'answered', 'crash', 'unread'];
  console.log(markdownTable(['file', ...short], [...perFile].map(([file, counts]) => [file, ...CLASSES.map((name) => String(counts.get(name) ?? 0))])));
  if (values.out !== undefined) {
    writeFileSync(values.out, JSON.stringify(report.map(({ file: _file, ...rest }) => rest), null, 1));
    console.log(`\n${report.length} cases written to ${values.out}`);
  }
}

await main();
