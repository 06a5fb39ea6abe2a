/**
 * One NDJSON line -> one line of the staged file, in the table's own layout, learning the metadata
 * schema on the way.
 *
 * DuckDB's `read_json`, given the table's column types, reads the staged file into the table with
 * no conversion of its own: a record the table stores as one STRUCT must be one object there, a
 * record stored as a list an array, and field names spelled as the table spells them (DuckDB
 * matches them case-sensitively). Most lines of real input already are that: they are checked,
 * their fields learned, and staged as their own text, with no JSON.stringify. A line that is not
 * (an array of one object where the table has a STRUCT, a field spelled in another case, a zoned
 * timestamp in another form, an empty array) is rewritten in the layout.
 *
 * A record that meets an array of no objects, several, or a null one is marked repeated: stored as
 * a list from then on. Lines already staged in the batch then hold it in the old layout, which
 * `layoutChanged` tells the caller, who restages them (rare: once per record, at most).
 */
import { microsText, normaliseTimestamp, timestampMicros } from '../../../engine/serve/timestamp.js';
import { DataError } from '../data-error.js';
import {
  LIST,
  SCALAR,
  describeShape,
  emptyRecord,
  fieldKey,
  hasColumns,
  markRepeated,
  widenField,
  widenScalar,
  type RecordValueShape,
  type ScalarType,
  type ShapedField,
  type ValueShape,
} from '../value-shape.js';

/** A staged line and the event's time in Unix microseconds. */
export interface StagedEvent {
  json: string;
  micros: number;
}

/**
 * How a batch's staged file holds `timestamp`: integer Unix microseconds (read as BIGINT, stored
 * through make_timestamptz) or ISO 8601 text DuckDB reads as the same instant (read as TIMESTAMPTZ).
 * The first line of a batch decides; a line in the other form is rewritten.
 */
export type TimestampForm = 'micros' | 'text';

type JsonObject = Record<string, unknown>;

const TOP_LEVEL_FIELDS = ['id', 'timestamp', 'event_message', 'project', 'metadata'];

/**
 * Zoned timestamps DuckDB's TIMESTAMPTZ reads as the instant `normaliseTimestamp` gives: the other
 * forms it accepts (a space or `t` for `T`, no seconds, `+0200`, `+02`) are rewritten.
 */
const DUCKDB_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?(?:Z|[+-]\d{2}:\d{2})$/;

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

/** Sets `out[name]`; assignment would set the prototype instead of a field called __proto__. */
function setField(out: JsonObject, name: string, value: unknown): void {
  if (name === '__proto__') Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  else out[name] = value;
}

export class EventNormaliser {
  /** The metadata shape so far: the table's, the source's declared fields, and every line seen. */
  readonly metadata: RecordValueShape;
  /** Set when a record went from one STRUCT to a list since the last `startBatch`. */
  layoutChanged = false;
  private timestampForm: TimestampForm | undefined;
  /** The source's own top-level columns besides the common ones, with their types. */
  private readonly columns: Readonly<Record<string, ScalarType>>;
  private readonly ownColumns: readonly (readonly [string, ScalarType])[];
  private readonly topLevel: ReadonlySet<string>;
  private line = 0;
  /** Whether the line being read must be rewritten to be in the table's layout. */
  private rewrite = false;
  /** Per record, its fields by each spelling of their names seen in the input (`field`). */
  private readonly spellings = new WeakMap<RecordValueShape, Map<string, ShapedField>>();

  constructor(metadata: RecordValueShape, columns: Readonly<Record<string, ScalarType>> = {}) {
    this.metadata = metadata;
    this.columns = columns;
    this.ownColumns = Object.entries(columns);
    this.topLevel = new Set([...TOP_LEVEL_FIELDS, ...Object.keys(columns)]);
  }

  /** A new staged file begins: its timestamps take the form of its first line. */
  startBatch(): void {
    this.timestampForm = undefined;
    this.layoutChanged = false;
  }

  /** How the current batch holds `timestamp`; `micros` for a batch of no lines. */
  get batchTimestampForm(): TimestampForm {
    return this.timestampForm ?? 'micros';
  }

  normalise(text: string, line: number): StagedEvent {
    this.line = line;
    this.rewrite = false;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw this.invalid(`not valid JSON (${(error as Error).message})`);
    }
    if (!isObject(value)) throw this.invalid(`expected a JSON object (one log event), got ${describeValue(value)}`);
    for (const key in value) {
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
    const micros = this.timestamp(timestamp);
    if (project !== undefined && project !== null && typeof project !== 'string') {
      throw this.invalid(`project must be a string, got ${describeValue(project)}`, 'project');
    }
    for (const [column, type] of this.ownColumns) {
      const field = value[column];
      if (field === undefined || field === null) continue;
      // Only an exact fit (or an integer for a number): a top-level column never widens. A
      // timestamp column would need the conversion `timestamp` gets; no source declares one.
      const actual = typeof field === 'object' ? undefined : scalarTypeOf(field as string | number | boolean);
      if (actual !== type && !(actual === 'integer' && type === 'number')) {
        throw this.invalid(`${column} must be ${describeShape(SCALAR[type])}, got ${describeValue(field)}`, column);
      }
    }
    if (metadata !== undefined && metadata !== null) this.inspectMetadata(metadata);
    return { json: this.rewrite ? JSON.stringify(this.conform(value)) : text, micros };
  }

  /** A line staged earlier in this batch, in the layout the shapes give now. */
  restage(json: string): string {
    return JSON.stringify(this.conform(JSON.parse(json) as JsonObject));
  }

  private timestamp(value: unknown): number {
    if (typeof value === 'string') {
      const micros = timestampMicros(value);
      if (micros !== undefined) {
        this.timestampForm ??= 'text';
        if (this.timestampForm !== 'text' || !DUCKDB_TIMESTAMP.test(value)) this.rewrite = true;
        return micros;
      }
    } else if (typeof value === 'number' && Number.isSafeInteger(value)) {
      this.timestampForm ??= 'micros';
      if (this.timestampForm !== 'micros') this.rewrite = true;
      return value;
    }
    throw this.invalid(
      `timestamp must be an ISO 8601 string with Z or an offset, or integer Unix microseconds; got ${describeValue(value)}`,
      'timestamp',
    );
  }

  private inspectMetadata(metadata: unknown): void {
    if (!isObject(metadata) && !Array.isArray(metadata)) {
      throw this.invalid(`metadata must be an object or an array of objects, got ${describeValue(metadata)}`, 'metadata');
    }
    const records = Array.isArray(metadata) ? metadata : [metadata];
    if (!holdsOneObject(records)) this.markRepeated(this.metadata);
    if (Array.isArray(metadata) !== this.metadata.repeated) this.rewrite = true;
    records.forEach((record, index) => {
      if (record === null) return;
      if (!isObject(record)) throw this.invalid(`metadata[${index}] must be an object, got ${describeValue(record)}`, 'metadata');
      this.inspectRecord(record, this.metadata, 'metadata');
    });
  }

  /** Checks `value` against `shape`, widening the shape to hold it; notes whether it needs rewriting. */
  private inspectRecord(value: JsonObject, shape: RecordValueShape, path: string): void {
    // Once a record, not once a key: a WeakMap lookup per key was a quarter of the walk (JSON.parse aside).
    const spellings = this.spellingsOf(shape);
    for (const key in value) {
      const field = value[key];
      // A null reads as NULL, and teaches nothing about the field's type.
      if (field === null) continue;
      const known = this.field(shape, spellings, key);
      if (known !== undefined && known.name !== key) {
        if (value[known.name] !== undefined && value[known.name] !== null) {
          throw this.invalid(`${path}.${key} and ${path}.${known.name} differ only in case; DuckDB field names are case-insensitive`, `${path}.${key}`);
        }
        this.rewrite = true;
      }
      if (known?.shape.kind === 'scalar' && typeof field !== 'object' && known.shape.type === scalarTypeOf(field as string | number | boolean)) {
        if (typeof field === 'number' && !Number.isFinite(field)) throw this.tooLarge(`${path}.${key}`);
        continue;
      }
      if (known?.shape.kind === 'record' && isObject(field)) {
        if (known.shape.repeated) this.rewrite = true;
        this.inspectRecord(field, known.shape, `${path}.${key}`);
        continue;
      }
      if (key === '' || key.includes('\u0000')) throw this.invalid(`${path} has a field with an unusable name ${JSON.stringify(key)}`, path);
      this.inspectField(field, shape, key, `${path}.${key}`);
    }
  }

  /**
   * The field `key` names in `shape`, in any case. Fields are keyed by their lower-case name, so a
   * camelCase key (most of a Cloudflare record's) missed, and was lower-cased and looked up again,
   * on every line: each spelling seen is remembered instead. A field once known stays the same
   * entry (shapes only widen, in place), so what is remembered stays true.
   */
  private field(shape: RecordValueShape, spellings: Map<string, ShapedField>, key: string): ShapedField | undefined {
    let field = spellings.get(key);
    if (field === undefined) {
      field = shape.fields.get(key) ?? shape.fields.get(fieldKey(key));
      if (field !== undefined) spellings.set(key, field);
    }
    return field;
  }

  /** The spellings remembered for `shape`'s fields (`field`). */
  private spellingsOf(shape: RecordValueShape): Map<string, ShapedField> {
    let spellings = this.spellings.get(shape);
    if (spellings === undefined) {
      spellings = new Map();
      this.spellings.set(shape, spellings);
    }
    return spellings;
  }

  private inspectField(value: unknown, parent: RecordValueShape, name: string, path: string): void {
    if (Array.isArray(value)) return this.inspectArray(value, parent, name, path);
    if (isObject(value)) {
      const record = this.childRecord(parent, name, path);
      if (record.repeated) this.rewrite = true;
      return this.inspectRecord(value, record, path);
    }
    const scalar = value as string | number | boolean;
    if (typeof scalar === 'number' && !Number.isFinite(scalar)) throw this.tooLarge(path);
    const existing = parent.fields.get(fieldKey(name))?.shape;
    // A declared timestamp field stays one as long as the text is an instant.
    if (existing?.kind === 'scalar' && existing.type === 'timestamp' && typeof scalar === 'string') {
      const canonical = normaliseTimestamp(scalar);
      if (canonical !== undefined) {
        if (!DUCKDB_TIMESTAMP.test(scalar)) this.rewrite = true;
        return;
      }
    }
    this.widen(parent, name, SCALAR[scalarTypeOf(scalar)], path);
  }

  private inspectArray(values: unknown[], parent: RecordValueShape, name: string, path: string): void {
    let element: ScalarType | undefined;
    let objects = false;
    for (const value of values) {
      if (value === null) continue;
      if (Array.isArray(value)) throw this.invalid(`${path} holds arrays of arrays, which a column cannot store`, path);
      if (isObject(value)) objects = true;
      else {
        if (typeof value === 'number' && !Number.isFinite(value)) throw this.tooLarge(path);
        const type = scalarTypeOf(value as string | number | boolean);
        element = element === undefined ? type : widenScalar(element, type);
      }
      if (objects && element !== undefined) throw this.invalid(`${path} mixes objects and scalars in one array`, path);
    }
    if (objects) {
      const record = this.childRecord(parent, name, path);
      if (!holdsOneObject(values)) this.markRepeated(record);
      if (!record.repeated) this.rewrite = true;
      for (const value of values) if (value !== null) this.inspectRecord(value as JsonObject, record, path);
      return;
    }
    if (element === undefined) {
      // An empty array says nothing about the element type. Where the field is an array of
      // scalars it is stored as it is, an empty list (as BigQuery stores it: array_length 0).
      // Anything else (a field not known yet, a record's [], an array of nulls) is left out, as
      // NULL: alike in either layout of a record, and a field known later can be of any type.
      if (values.length > 0 || parent.fields.get(fieldKey(name))?.shape.kind !== 'list') this.rewrite = true;
      return;
    }
    this.widen(parent, name, LIST[element], path);
  }

  private markRepeated(record: RecordValueShape): void {
    if (record.repeated) return;
    markRepeated(record);
    this.layoutChanged = true;
    // This line may have been read as staying in the old layout before the record changed.
    this.rewrite = true;
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

  /** An event (already checked) in the table's layout, as `read_json` reads it with the table's types. */
  private conform(value: JsonObject): JsonObject {
    const out: JsonObject = { id: value.id, timestamp: this.stagedTimestamp(value.timestamp), event_message: value.event_message };
    if (value.project !== undefined && value.project !== null) out.project = value.project;
    for (const column of Object.keys(this.columns)) {
      if (value[column] !== undefined && value[column] !== null) out[column] = value[column];
    }
    const metadata = value.metadata;
    if (metadata !== undefined && metadata !== null && hasColumns(this.metadata)) {
      out.metadata = Array.isArray(metadata)
        ? this.metadata.repeated
          ? metadata.map((record) => (record === null ? null : this.conformRecord(record as JsonObject, this.metadata)))
          : this.conformRecord(metadata[0] as JsonObject, this.metadata)
        : this.metadata.repeated
          ? [this.conformRecord(metadata as JsonObject, this.metadata)]
          : this.conformRecord(metadata as JsonObject, this.metadata);
    }
    return out;
  }

  private stagedTimestamp(value: unknown): unknown {
    if (this.batchTimestampForm === 'micros') return typeof value === 'number' ? value : timestampMicros(value as string);
    if (typeof value === 'number') return microsText(value);
    const text = value as string;
    return DUCKDB_TIMESTAMP.test(text) ? text : normaliseTimestamp(text);
  }

  private conformRecord(value: JsonObject, shape: RecordValueShape): JsonObject {
    // A plain object, not a null-prototype one: V8 stringifies objects of one shape much faster.
    const out: JsonObject = {};
    for (const key in value) {
      const field = value[key];
      if (field === null) continue;
      const entry = shape.fields.get(key) ?? shape.fields.get(fieldKey(key));
      // A field whose record has no known fields yet has no column to go to.
      if (entry === undefined) continue;
      const conformed = this.conformValue(field, entry.shape);
      if (conformed !== undefined) setField(out, entry.name, conformed);
    }
    return out;
  }

  private conformValue(value: unknown, shape: ValueShape): unknown {
    switch (shape.kind) {
      case 'record': {
        if (!Array.isArray(value)) return shape.repeated ? [this.conformRecord(value as JsonObject, shape)] : this.conformRecord(value as JsonObject, shape);
        if (!value.some((element) => element !== null)) return undefined;
        if (!shape.repeated) return this.conformRecord(value[0] as JsonObject, shape);
        return value.map((element) => (element === null ? null : this.conformRecord(element as JsonObject, shape)));
      }
      case 'list':
        return Array.isArray(value) && value.length > 0 && !value.some((element) => element !== null) ? undefined : value;
      case 'scalar':
        if (shape.type === 'timestamp' && typeof value === 'string' && !DUCKDB_TIMESTAMP.test(value)) return normaliseTimestamp(value) ?? value;
        return value;
      case 'native':
        return value;
    }
  }

  private invalid(message: string, field?: string): DataError {
    return new DataError('invalid_event', `line ${this.line}: ${message}`, { line: this.line, ...(field ? { field } : {}) });
  }

  private tooLarge(path: string): DataError {
    return this.invalid(`${path} is a number beyond the range of a DOUBLE`, path);
  }

  private conflict(message: string, field: string): DataError {
    return new DataError('type_conflict', `line ${this.line}: ${message}`, {
      line: this.line,
      field,
    });
  }
}
