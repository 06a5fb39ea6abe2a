/**
 * Events sent over HTTP, checked against their source's declared columns before anything is
 * queued: a request with one event that does not fit is refused whole (400 naming its index and
 * field), so the writer's group of requests commits or fails only for reasons of the database.
 *
 * Each event is rewritten as its staged line: fields under their declared names, a timestamp in
 * the ISO form DuckDB's reader takes, nothing undeclared (a user's source) that the reader would
 * drop without a word (refused by name instead). The log sources keep their schemaless metadata: fields beyond the declared
 * ones are learned as `cannery import` learns them.
 */
import { randomUUID } from 'node:crypto';
import { CanneryError } from '../../core/errors.js';
import type { DeclaredField, SourceDeclaration } from '../../config/source-declaration.js';
import { microsText, normaliseTimestamp } from '../serve/timestamp.js';

export interface IngestSource {
  declaration: SourceDeclaration;
  /** A shipped log source: metadata takes undeclared fields; its events need an id and an event_message (Logflare's get an id made when absent). */
  log: boolean;
}

/** How events are read: as sent to /api/sources/NAME/events, or Logflare's shape (/api/logs). */
export type EventDialect = 'events' | 'logflare';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(index: number, field: string | undefined, why: string): CanneryError {
  return new CanneryError('invalid_event', `event ${index}${field === undefined ? '' : `, field ${field}`}: ${why}; nothing of this request was written`, {
    param: field,
  });
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** How a request's body holds its events: one JSON object a line, or one JSON document. */
export type BodyKind = 'ndjson' | 'json';

/** A request body's events: NDJSON's lines, a JSON array's elements, Logflare's `{"batch": [...]}` or one event. */
export function parseEvents(text: string, kind: BodyKind, dialect: EventDialect): unknown[] {
  if (kind === 'ndjson') {
    const events: unknown[] = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        events.push(JSON.parse(line));
      } catch (error) {
        throw new CanneryError('invalid_event', `event ${events.length}: not JSON (${(error as Error).message}); nothing of this request was written`);
      }
    }
    return events;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new CanneryError('invalid_event', `the body is not JSON (${(error as Error).message}); nothing of this request was written`);
  }
  if (Array.isArray(body)) return body;
  if (typeof body === 'object' && body !== null) {
    // Logflare's batch: `{"batch": [...]}`; anything else is one event.
    const batch = (body as { batch?: unknown }).batch;
    if (dialect === 'logflare' && Array.isArray(batch)) return batch;
    return [body];
  }
  throw new CanneryError('invalid_event', 'the body is neither an event (a JSON object) nor a list of them; nothing of this request was written');
}

/**
 * The staged lines of `events` for `source`, in order; throws invalid_event at the first event
 * that does not fit. `now` is the time received: Logflare's events without a timestamp take it.
 */
export function stageEvents(source: IngestSource, events: readonly unknown[], dialect: EventDialect, now: Date): string[] {
  return events.map((event, index) => {
    if (!isObject(event)) throw invalid(index, undefined, `${preview(event)} is not a JSON object`);
    const shaped = dialect === 'logflare' ? logflareShape(event, index, source, now) : event;
    if (source.log) requireLogFields(shaped, index);
    const logflare = dialect === 'logflare';
    return JSON.stringify(checkRecord(shaped, source.declaration.columns, '', index, { lenient: false, wrap: logflare, log: source.log, epochByMagnitude: logflare || source.log }));
  });
}

/**
 * What the import refuses of a log source's event, refused here by its index: found only when the
 * group is written, it would fail every request committed with it, each then written again alone.
 */
function requireLogFields(event: JsonObject, index: number): void {
  const refuse = (field: string, what: string) => invalid(index, field, event[field] === undefined ? `missing; a log source's event needs ${what}` : `${preview(event[field])} is not ${what}, which a log source's event needs`);
  if (typeof event.id !== 'string' || event.id === '') throw refuse('id', 'a non-empty string');
  if (typeof event.event_message !== 'string') throw refuse('event_message', 'a string');
}

/**
 * Logflare's event: `message` is event_message, `metadata` the source's metadata record, a missing
 * timestamp the time received and a missing id a new UUID (Logflare's own ingest does the same).
 */
function logflareShape(event: JsonObject, index: number, source: IngestSource, now: Date): JsonObject {
  const declares = (name: string) => fieldNamed(indexOf(source.declaration.columns), name) !== undefined;
  const shaped: JsonObject = {};
  // Logflare keeps any field; a source here has its columns, and the rest of an event (Supabase's
  // pipeline sends `appname` beside them) is kept in its metadata record, where a source has one.
  const metadata: JsonObject = {};
  for (const [key, value] of Object.entries(event)) {
    if (declares(key) || key === 'message' || key === 'log_entry' || !declares('metadata')) define(shaped, key, value);
    else define(metadata, key, value);
  }
  if (Object.keys(metadata).length > 0) {
    const own = shaped.metadata;
    const one = Array.isArray(own) && own.length === 1 && isObject(own[0]) ? own[0] : own;
    if (one !== undefined && one !== null && !isObject(one)) throw invalid(index, Object.keys(metadata)[0], 'not a column of the source, and its metadata is not one object to keep it in');
    shaped.metadata = { ...metadata, ...(one as JsonObject | null | undefined) };
  }
  // `log_entry`: what Logflare's browser clients name the message.
  for (const alias of ['message', 'log_entry']) {
    if (alias in shaped && !('event_message' in shaped) && declares('event_message')) {
      shaped.event_message = shaped[alias];
      delete shaped[alias];
    }
  }
  if ((shaped.timestamp === undefined || shaped.timestamp === null) && declares('timestamp')) shaped.timestamp = now.toISOString();
  if ((shaped.id === undefined || shaped.id === null) && declares('id')) shaped.id = randomUUID();
  return shaped;
}

interface Mode {
  /** Undeclared fields kept (a log source's metadata), not refused. */
  lenient: boolean;
  /** An object where a REPEATED RECORD is declared is its one element (Logflare's nested objects). */
  wrap: boolean;
  log: boolean;
  /** A number for a TIMESTAMP is seconds, milliseconds or microseconds by its size, as Logflare reads one. */
  epochByMagnitude: boolean;
}

/** A declared record's fields by name as declared and by lower-case name, and whether any is REQUIRED. */
interface FieldIndex {
  exact: ReadonlyMap<string, DeclaredField>;
  lower: ReadonlyMap<string, DeclaredField>;
  required: boolean;
}

/** Built once per declaration rather than once per event: checking events is on the request's path. */
const fieldIndexes = new WeakMap<readonly DeclaredField[], FieldIndex>();

function indexOf(fields: readonly DeclaredField[]): FieldIndex {
  let index = fieldIndexes.get(fields);
  if (index === undefined) {
    index = {
      exact: new Map(fields.map((field) => [field.name, field])),
      lower: new Map(fields.map((field) => [field.name.toLowerCase(), field])),
      required: fields.some((field) => field.mode === 'REQUIRED'),
    };
    fieldIndexes.set(fields, index);
  }
  return index;
}

function fieldNamed(fields: FieldIndex, key: string): DeclaredField | undefined {
  return fields.exact.get(key) ?? fields.lower.get(key.toLowerCase());
}

function checkRecord(record: JsonObject, fields: readonly DeclaredField[], path: string, index: number, mode: Mode): JsonObject {
  const out: JsonObject = {};
  const named = indexOf(fields);
  // Keys spelled as declared cannot name a field twice (a JSON object's keys are distinct): only a
  // record with another spelling, or a REQUIRED field to find, needs the fields seen counted.
  let spelledOtherwise = false;
  for (const key in record) {
    const value = record[key];
    const field = fieldNamed(named, key);
    if (field === undefined) {
      if (mode.lenient) {
        define(out, key, value);
        continue;
      }
      throw invalid(index, `${path}${key}`, `not declared in the source (declared: ${fields.map((declared) => declared.name).join(', ')})`);
    }
    if (key !== field.name) spelledOtherwise = true;
    const checked = checkField(value, field, `${path}${field.name}`, index, mode, path === '' && mode.log && field.name === 'metadata');
    if (checked !== undefined) define(out, field.name, checked);
  }
  if (spelledOtherwise || named.required) {
    const seen = new Set<DeclaredField>();
    for (const key in record) {
      const field = fieldNamed(named, key);
      if (field === undefined) continue;
      if (seen.has(field)) throw invalid(index, `${path}${key}`, `given twice (field names are case-insensitive)`);
      seen.add(field);
    }
    for (const field of fields) {
      if (field.mode === 'REQUIRED' && !seen.has(field)) throw invalid(index, `${path}${field.name}`, 'missing, and the source declares it REQUIRED');
    }
  }
  return out;
}

/**
 * Sets `out[name]`, a field named __proto__ staying a field (assignment would set the prototype).
 * Only that name takes defineProperty: defining every field so turned each staged object into a
 * slow dictionary, the largest cost per event under bench:ingest.
 */
function define(out: JsonObject, name: string, value: unknown): void {
  if (name === '__proto__') Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  else out[name] = value;
}

function checkField(value: unknown, field: DeclaredField, path: string, index: number, mode: Mode, metadata: boolean): unknown {
  if (value === null || value === undefined) {
    if (field.mode === 'REQUIRED') throw invalid(index, path, 'null, and the source declares it REQUIRED');
    return null;
  }
  const inner: Mode = metadata ? { ...mode, lenient: true } : mode;
  if (field.mode === 'REPEATED') {
    // The log sources store each nested object as a repeated record (one element), at any depth, as
    // `cannery import` reads the same events: so do Logflare's events, whatever the source.
    const one = !Array.isArray(value) && field.type === 'RECORD' && isObject(value) && (mode.wrap || mode.log || metadata);
    const list = Array.isArray(value) ? value : one ? [value] : undefined;
    if (list === undefined) throw invalid(index, path, `${preview(value)} is not an array, and the field is REPEATED`);
    const checked = list.map((element, position) => {
      if (element === null) throw invalid(index, `${path}[${position}]`, 'null, which a REPEATED field cannot hold (as in BigQuery)');
      return checkValue(element, field, `${path}[${position}]`, index, inner);
    });
    // A log source's import lays each record out as its table stores it (one STRUCT, or a list):
    // an object sent stays one object, which that table mostly stores as it is, so the import
    // stages the line as it is instead of rewriting every event from arrays back to objects.
    return one && mode.log ? checked[0] : checked;
  }
  return checkValue(value, field, path, index, inner);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?$/;
const TIME = /^\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?$/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function checkValue(value: unknown, field: DeclaredField, path: string, index: number, mode: Mode): unknown {
  const wrong = (what: string) => invalid(index, path, `${preview(value)} is not ${what}`);
  switch (field.type) {
    case 'RECORD':
      if (!isObject(value)) throw wrong('an object, and the field is a RECORD');
      return checkRecord(value, field.fields ?? [], `${path}.`, index, mode);
    case 'STRING':
      if (typeof value !== 'string') throw wrong('a string');
      return value;
    case 'JSON':
      return value;
    case 'BOOL':
      if (typeof value !== 'boolean') throw wrong('true or false');
      return value;
    case 'INT64': {
      // JSON.parse has already rounded a number past 2^53: such a value must come as a string.
      if (typeof value === 'number') {
        if (!Number.isSafeInteger(value)) throw wrong(Number.isInteger(value) ? 'an INT64 this server reads exactly (past 2^53, send it as a string)' : 'a whole number');
        return value;
      }
      if (typeof value !== 'string' || !/^[+-]?\d+$/.test(value.trim())) throw wrong('a valid INT64');
      const whole = BigInt(value.trim());
      if (whole < INT64_MIN || whole > INT64_MAX) throw wrong('within INT64');
      return value.trim();
    }
    case 'FLOAT64':
      if (typeof value === 'number') return value;
      if (typeof value === 'string' && (DECIMAL.test(value) || /^[+-]?(inf|infinity|nan)$/i.test(value))) return value;
      throw wrong('a number');
    case 'NUMERIC':
    case 'BIGNUMERIC':
      if (typeof value === 'number' || (typeof value === 'string' && DECIMAL.test(value))) return value;
      throw wrong('a number');
    case 'TIMESTAMP':
      return timestampText(value, mode.epochByMagnitude) ?? (() => {
        throw wrong('a timestamp (ISO 8601 with Z or an offset, or a number of seconds since 1970)');
      })();
    case 'DATE':
      if (typeof value !== 'string' || !DATE.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) throw wrong('a DATE (YYYY-MM-DD)');
      return value;
    case 'DATETIME':
      if (typeof value !== 'string' || !DATETIME.test(value)) throw wrong('a DATETIME (YYYY-MM-DDTHH:MM:SS[.ffffff])');
      return value;
    case 'TIME':
      if (typeof value !== 'string' || !TIME.test(value)) throw wrong('a TIME (HH:MM:SS[.ffffff])');
      return value;
    case 'BYTES':
      if (typeof value !== 'string' || !BASE64.test(value)) throw wrong('base64 text, as a BYTES value is written in JSON');
      return value;
  }
}

/**
 * A TIMESTAMP as DuckDB's reader takes it: zoned ISO 8601 text, or a number. A number is seconds
 * since 1970 as BigQuery's streaming inserts read it; a log source, and any source through
 * Logflare's route, reads it by its size as Logflare does: past 1e14 Unix microseconds (the wire
 * form of cannery's own answers), past 1e11 milliseconds (pino's `time`, which pino-logflare sends).
 */
function timestampText(value: unknown, byMagnitude: boolean): string | undefined {
  // Shippers write nanoseconds (Vector's timestamps, Docker's): cut to microseconds, what a TIMESTAMP holds.
  if (typeof value === 'string') return normaliseTimestamp(value.replace(/([.,]\d{6})\d{1,3}(?=[Zz+-]|$)/, '$1'));
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  const size = Math.abs(value);
  const micros = !byMagnitude || size < 1e11 ? Math.round(value * 1e6) : size < 1e14 ? Math.round(value * 1e3) : Math.round(value);
  if (Math.abs(micros) > 253402300799999999) return undefined;
  return microsText(micros);
}
