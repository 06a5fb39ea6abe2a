/**
 * A SQL value of any type handed to a host function as DuckDB writes it with `to_json(x)` and
 * names its type with `typeof(x)` (`STRUCT(a VARCHAR, b DOUBLE[])`), read back as a typed value in
 * BigQuery's types, so FORMAT's %t and %T and TO_JSON can write it as BigQuery would. to_json keeps
 * what these need: a DECIMAL's digits, a double's shortest digits (NaN and Infinity as bare
 * words), BLOB escapes, the text of dates and times.
 */
import { parseJson, type JsonValue } from '../../../sql/functions/json-value.js';
import { HostFunctionError } from './errors.js';

export type SqlValue =
  | { type: 'null' }
  | { type: 'int64'; value: bigint }
  | { type: 'float64'; value: number }
  | { type: 'numeric'; text: string }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'bytes'; value: Uint8Array }
  | { type: 'date' | 'datetime' | 'time' | 'timestamp' | 'interval'; text: string }
  | { type: 'json'; value: JsonValue }
  | { type: 'array'; elements: SqlValue[] }
  | { type: 'struct'; fields: { name: string; value: SqlValue }[] };

type TypeNode = { kind: 'scalar'; name: string } | { kind: 'list'; element: TypeNode } | { kind: 'struct'; fields: { name: string; type: TypeNode }[] };

/** DuckDB's name of a type (`typeof`) as a tree. */
export function readType(text: string): TypeNode {
  let at = 0;
  const space = () => {
    while (text[at] === ' ') at++;
  };
  const name = (): string => {
    space();
    if (text[at] === '"') {
      let out = '';
      at++;
      while (at < text.length) {
        if (text[at] === '"' && text[at + 1] === '"') {
          out += '"';
          at += 2;
        } else if (text[at] === '"') {
          at++;
          return out;
        } else out += text[at++];
      }
      throw new HostFunctionError(`cannot read the type ${text}`);
    }
    const start = at;
    while (at < text.length && !' (),[]'.includes(text[at]!)) at++;
    return text.slice(start, at);
  };
  const type = (): TypeNode => {
    space();
    let node: TypeNode;
    if (text.startsWith('STRUCT(', at)) {
      at += 'STRUCT('.length;
      const fields: { name: string; type: TypeNode }[] = [];
      for (;;) {
        space();
        if (text[at] === ')') break;
        const field = name();
        fields.push({ name: field, type: type() });
        space();
        if (text[at] === ',') at++;
      }
      at++;
      node = { kind: 'struct', fields };
    } else {
      // A scalar's name may hold spaces and a parenthesised part: TIMESTAMP WITH TIME ZONE, DECIMAL(38,9).
      const start = at;
      while (at < text.length && !',)['.includes(text[at]!)) {
        if (text[at] === '(') while (text[at] !== ')') at++;
        at++;
      }
      node = { kind: 'scalar', name: text.slice(start, at).trim() };
    }
    while (text.startsWith('[]', at)) {
      at += 2;
      node = { kind: 'list', element: node };
    }
    return node;
  };
  return type();
}

/** DuckDB's to_json text: JSON with NaN and Infinity, numbers kept as their text. */
type Raw = null | boolean | string | RawNumber | Raw[] | { [key: string]: Raw };

class RawNumber {
  constructor(readonly text: string) {}
}

function readRaw(text: string): Raw {
  let at = 0;
  const space = () => {
    while (' \t\n\r'.includes(text[at] ?? 'x')) at++;
  };
  const value = (): Raw => {
    space();
    const char = text[at];
    if (char === '{') {
      at++;
      const object: { [key: string]: Raw } = {};
      space();
      if (text[at] === '}') {
        at++;
        return object;
      }
      for (;;) {
        space();
        const key = value() as string;
        space();
        at++; // ':'
        object[key] = value();
        space();
        if (text[at++] === '}') return object;
      }
    }
    if (char === '[') {
      at++;
      const items: Raw[] = [];
      space();
      if (text[at] === ']') {
        at++;
        return items;
      }
      for (;;) {
        items.push(value());
        space();
        if (text[at++] === ']') return items;
      }
    }
    if (char === '"') {
      const start = at++;
      while (text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
      at++;
      return JSON.parse(text.slice(start, at)) as string;
    }
    const word = /^(?:true|false|null|-?Infinity|NaN|-?[0-9][0-9.eE+-]*)/.exec(text.slice(at))?.[0];
    if (word === undefined) throw new HostFunctionError(`cannot read the value ${text}`);
    at += word.length;
    if (word === 'true' || word === 'false') return word === 'true';
    if (word === 'null') return null;
    return new RawNumber(word);
  };
  return value();
}

/** BLOB text as DuckDB writes it: `\xHH` escapes, other characters as themselves. */
function blobBytes(text: string): Uint8Array {
  const bytes: number[] = [];
  for (let at = 0; at < text.length; ) {
    if (text.startsWith('\\x', at)) {
      bytes.push(parseInt(text.slice(at + 2, at + 4), 16));
      at += 4;
    } else {
      bytes.push(text.charCodeAt(at));
      at++;
    }
  }
  return Uint8Array.from(bytes);
}

const INTEGER_TYPES = new Set(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT']);

function toValue(raw: Raw, type: TypeNode): SqlValue {
  if (raw === null) return { type: 'null' };
  if (type.kind === 'list') return { type: 'array', elements: (raw as Raw[]).map((item) => toValue(item, type.element)) };
  if (type.kind === 'struct') {
    const object = raw as { [key: string]: Raw };
    return { type: 'struct', fields: type.fields.map((field) => ({ name: field.name, value: toValue(object[field.name] ?? null, field.type) })) };
  }
  const name = type.name;
  const number = raw instanceof RawNumber ? raw.text : '';
  if (INTEGER_TYPES.has(name)) return { type: 'int64', value: BigInt(number) };
  if (name === 'DOUBLE' || name === 'FLOAT') return { type: 'float64', value: Number(number === 'Infinity' ? Infinity : number === '-Infinity' ? -Infinity : number) };
  if (name.startsWith('DECIMAL')) return { type: 'numeric', text: number };
  if (name === 'BOOLEAN') return { type: 'bool', value: raw as boolean };
  if (name === 'VARCHAR') return { type: 'string', value: raw as string };
  if (name === 'BLOB') return { type: 'bytes', value: blobBytes(raw as string) };
  if (name === 'JSON') return { type: 'json', value: parseJson(rawText(raw), 'round') };
  const temporal: Readonly<Record<string, 'date' | 'datetime' | 'time' | 'timestamp' | 'interval'>> = { DATE: 'date', TIMESTAMP: 'datetime', TIME: 'time', 'TIMESTAMP WITH TIME ZONE': 'timestamp', INTERVAL: 'interval' };
  const kind = temporal[name];
  if (kind !== undefined) return { type: kind, text: raw as string };
  throw new HostFunctionError(`a value of type ${name} is not supported here on the embedded engine`);
}

/** A JSON value DuckDB embedded in to_json's text, written back as JSON text (numbers as they were). */
function rawText(raw: Raw): string {
  if (raw === null || typeof raw !== 'object') return JSON.stringify(raw);
  if (Array.isArray(raw)) return `[${raw.map(rawText).join(',')}]`;
  if (raw instanceof RawNumber) return raw.text;
  return `{${Object.entries(raw).map(([key, value]) => `${JSON.stringify(key)}:${rawText(value)}`).join(',')}}`;
}

/** The value DuckDB wrote with to_json (NULL: null) and named with typeof. */
export function readSqlValue(json: string | null, type: string): SqlValue {
  if (json === null) return { type: 'null' };
  if (type === 'JSON') return { type: 'json', value: parseJson(json, 'round') };
  return toValue(readRaw(json), readType(type));
}
