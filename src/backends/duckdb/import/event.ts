/**
 * One NDJSON line -> one row of a source table, learning the metadata schema on the way.
 *
 * The row is written back as JSON for DuckDB's `read_json` with explicit column types, so
 * normalising here means: every nested object becomes a one-element array (the repeated-record
 * convention), field names take the spelling the table already uses, nulls are dropped (a
 * missing key reads as NULL) and timestamps become one unambiguous form. A record that meets an
 * array of no objects, several, or a null one is marked repeated: stored as a list from then on.
 */
import { normaliseTimestamp } from '../../../engine/serve/timestamp.js';
import { DataError } from '../data-error.js';
import {
  LIST,
  SCALAR,
  describeShape,
  emptyRecord,
  fieldKey,
  markRepeated,
  widenField,
  widenScalar,
  type RecordValueShape,
  type ScalarType,
  type ValueShape,
} from '../value-shape.js';

/** A row as written for `read_json`; `timestamp` is Unix microseconds, read with `make_timestamptz`. */
export interface NormalisedEvent {
  id: string;
  timestamp: number;
  event_message: string;
  project?: string;
  metadata?: unknown[];
  /** The source's own top-level columns (`identifier`...), by name. */
  [column: string]: unknown;
}

type JsonObject = Record<string, unknown>;

const TOP_LEVEL_FIELDS = ['id', 'timestamp', 'event_message', 'project', 'metadata'];

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether an array of objects fits a record stored as one STRUCT: exactly one element, not null. */
function holdsOneObject(values: readonly unknown[]): boolean {
  return values.length === 1 && values[0] !== null;
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing (the field is missing)';
  if (value === null) return 'null';
  if (typeof value === 'string' || typeof value === 'number') return JSON.stringify(value).slice(0, 80);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function scalarTypeOf(value: string | number | boolean): ScalarType {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  // Integers beyond 2^53 already lost digits in JSON.parse; calling them numbers is honest.
  return Number.isSafeInteger(value) ? 'integer' : 'number';
}

/** Unix microseconds of a canonical `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
function canonicalMicros(canonical: string): number {
  return Date.parse(`${canonical.slice(0, 19)}Z`) * 1000 + Number(canonical.slice(20, 26));
}

export class EventNormaliser {
  /** The metadata shape so far: the table's, the source's declared fields, and every line seen. */
  readonly metadata: RecordValueShape;
  /** The source's own top-level columns besides the common ones, with their types. */
  private readonly columns: Readonly<Record<string, ScalarType>>;
  private readonly topLevel: ReadonlySet<string>;
  private line = 0;

  constructor(metadata: RecordValueShape, columns: Readonly<Record<string, ScalarType>> = {}) {
    this.metadata = metadata;
    this.columns = columns;
    this.topLevel = new Set([...TOP_LEVEL_FIELDS, ...Object.keys(columns)]);
  }

  normalise(text: string, line: number): NormalisedEvent {
    this.line = line;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw this.invalid(`not valid JSON (${(error as Error).message})`);
    }
    if (!isObject(value)) throw this.invalid(`expected a JSON object (one log event), got ${describeValue(value)}`);
    for (const key of Object.keys(value)) {
      if (!this.topLevel.has(key)) {
        throw this.invalid(
          `unknown top-level field ${JSON.stringify(key)}; an event of this source has ${[...this.topLevel].join(', ')} ` +
            '(put anything else under metadata)',
          key,
        );
      }
    }
    const { id, timestamp, event_message: message, project, metadata } = value;
    if (typeof id !== 'string' || id === '') throw this.invalid(`id must be a non-empty string, got ${describeValue(id)}`, 'id');
    if (typeof message !== 'string') {
      throw this.invalid(`event_message must be a string, got ${describeValue(message)}`, 'event_message');
    }
    const event: NormalisedEvent = { id, timestamp: this.timestamp(timestamp), event_message: message };
    if (project !== undefined && project !== null) {
      if (typeof project !== 'string') throw this.invalid(`project must be a string, got ${describeValue(project)}`, 'project');
      event.project = project;
    }
    for (const [column, type] of Object.entries(this.columns)) {
      const field = value[column];
      if (field === undefined || field === null) continue;
      // Only an exact fit (or an integer for a number): a top-level column never widens. A
      // timestamp column would need the conversion `timestamp` gets; no source declares one.
      const actual = typeof field === 'object' ? undefined : scalarTypeOf(field as string | number | boolean);
      if (actual !== type && !(actual === 'integer' && type === 'number')) {
        throw this.invalid(`${column} must be ${describeShape(SCALAR[type])}, got ${describeValue(field)}`, column);
      }
      event[column] = field;
    }
    if (metadata !== undefined && metadata !== null) {
      if (!isObject(metadata) && !Array.isArray(metadata)) {
        throw this.invalid(`metadata must be an object or an array of objects, got ${describeValue(metadata)}`, 'metadata');
      }
      const records = Array.isArray(metadata) ? metadata : [metadata];
      if (!holdsOneObject(records)) markRepeated(this.metadata);
      event.metadata = records.map((record, index) => {
        if (record === null) return null;
        if (!isObject(record)) {
          throw this.invalid(`metadata[${index}] must be an object, got ${describeValue(record)}`, 'metadata');
        }
        return this.record(record, this.metadata, 'metadata');
      });
    }
    return event;
  }

  private timestamp(value: unknown): number {
    if (typeof value === 'string') {
      const canonical = normaliseTimestamp(value);
      if (canonical !== undefined) return canonicalMicros(canonical);
    } else if (typeof value === 'number' && Number.isSafeInteger(value)) {
      return value;
    }
    throw this.invalid(
      `timestamp must be an ISO 8601 string with Z or an offset, or integer Unix microseconds; got ${describeValue(value)}`,
      'timestamp',
    );
  }

  private record(value: JsonObject, shape: RecordValueShape, path: string): JsonObject {
    // A plain object, not a null-prototype one: V8 stringifies objects of one shape much faster.
    const out: JsonObject = {};
    for (const key in value) {
      const field = value[key];
      if (field === null) continue;
      // Most keys come spelled as the table spells them; fold case only when that misses.
      const known = shape.fields.get(key) ?? shape.fields.get(fieldKey(key));
      const name = known?.name ?? key;
      if (Object.hasOwn(out, name)) {
        throw this.invalid(`${path}.${key} and ${path}.${name} differ only in case; DuckDB field names are case-insensitive`, `${path}.${key}`);
      }
      let normalised: unknown;
      if (known?.shape.kind === 'scalar' && typeof field !== 'object' && known.shape.type === scalarTypeOf(field as string | number | boolean)) {
        normalised = field;
      } else if (known?.shape.kind === 'record' && isObject(field)) {
        normalised = [this.record(field, known.shape, `${path}.${key}`)];
      } else {
        if (key === '' || key.includes('\u0000')) throw this.invalid(`${path} has a field with an unusable name ${JSON.stringify(key)}`, path);
        normalised = this.field(field, shape, key, `${path}.${key}`);
      }
      if (normalised === undefined) continue;
      // Assignment would set the prototype instead of a field called __proto__.
      if (name === '__proto__') Object.defineProperty(out, name, { value: normalised, enumerable: true, writable: true, configurable: true });
      else out[name] = normalised;
    }
    return out;
  }

  private field(value: unknown, parent: RecordValueShape, name: string, path: string): unknown {
    if (Array.isArray(value)) return this.array(value, parent, name, path);
    if (isObject(value)) return [this.record(value, this.childRecord(parent, name, path), path)];
    const scalar = value as string | number | boolean;
    const existing = parent.fields.get(fieldKey(name))?.shape;
    // A declared timestamp field stays one as long as the text is an instant.
    if (existing?.kind === 'scalar' && existing.type === 'timestamp' && typeof scalar === 'string') {
      const canonical = normaliseTimestamp(scalar);
      if (canonical !== undefined) return canonical;
    }
    this.widen(parent, name, SCALAR[scalarTypeOf(scalar)], path);
    return scalar;
  }

  private array(values: unknown[], parent: RecordValueShape, name: string, path: string): unknown[] | undefined {
    let element: ScalarType | undefined;
    let objects = false;
    for (const value of values) {
      if (value === null) continue;
      if (Array.isArray(value)) throw this.invalid(`${path} holds arrays of arrays, which a column cannot store`, path);
      if (isObject(value)) objects = true;
      else {
        const type = scalarTypeOf(value as string | number | boolean);
        element = element === undefined ? type : widenScalar(element, type);
      }
      if (objects && element !== undefined) throw this.invalid(`${path} mixes objects and scalars in one array`, path);
    }
    if (objects) {
      const record = this.childRecord(parent, name, path);
      if (!holdsOneObject(values)) markRepeated(record);
      return values.map((value) => (value === null ? null : this.record(value as JsonObject, record, path)));
    }
    // An empty array says nothing about the element type, and reads like NULL under unnest.
    if (element === undefined) return undefined;
    this.widen(parent, name, LIST[element], path);
    return values;
  }

  private childRecord(parent: RecordValueShape, name: string, path: string): RecordValueShape {
    const shape = this.widen(parent, name, emptyRecord(parent.repeated), path);
    if (shape.kind !== 'record') {
      throw this.conflict(`${path} is an object here but ${describeShape(shape)} elsewhere; no column type holds both`, path);
    }
    return shape;
  }

  private widen(parent: RecordValueShape, name: string, incoming: ValueShape, path: string): ValueShape {
    try {
      return widenField(parent, name, incoming, path);
    } catch (error) {
      if (error instanceof DataError) throw this.conflict(error.message, error.field ?? path);
      throw error;
    }
  }

  private invalid(message: string, field?: string): DataError {
    return new DataError('invalid_event', `line ${this.line}: ${message}`, { line: this.line, ...(field ? { field } : {}) });
  }

  private conflict(message: string, field: string): DataError {
    return new DataError('type_conflict', `line ${this.line}: ${message}`, {
      line: this.line,
      field,
    });
  }
}
