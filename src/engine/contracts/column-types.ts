/**
 * Column types as people read them (`ARRAY<STRUCT<path STRING>>`), and as they travel on the
 * wire (DESIGN.md): the JSON Schema of a value, for /openapi.json and `cannery describe`.
 */
import type { ColumnType, ScalarTypeName } from '../../core/types.js';

/** BigQuery's spelling of the type; `depth` limits how far nested fields are spelled out. */
export function typeText(type: ColumnType, depth = Infinity): string {
  switch (type.kind) {
    case 'scalar':
      return type.name;
    case 'array':
      return `ARRAY<${typeText(type.element, depth)}>`;
    case 'struct':
      return depth <= 0 ? 'STRUCT' : `STRUCT<${type.fields.map((field) => `${field.name} ${typeText(field.type, depth - 1)}`).join(', ')}>`;
    case 'unknown':
      return `${type.description} (no BigQuery type)`;
  }
}

type Json = Record<string, unknown>;

const SCALAR_WIRE: Record<ScalarTypeName, Json> = {
  STRING: { type: 'string' },
  INT64: { type: 'integer' },
  // JSON has no number for them: the strings BigQuery's REST API writes (core/wire-float.ts).
  FLOAT64: { type: ['number', 'string'], description: 'FLOAT64: NaN and the infinities as the strings "NaN", "Infinity", "-Infinity"' },
  // A decimal a double would round is its exact string, as BigQuery's REST API writes it (core/wire-decimal.ts).
  NUMERIC: { type: ['number', 'string'], description: 'NUMERIC: a number, or the exact decimal string where a double would not read back the same value' },
  BOOL: { type: 'boolean' },
  TIMESTAMP: { type: 'integer', description: 'TIMESTAMP: Unix microseconds' },
  DATETIME: { type: 'string', description: 'DATETIME: YYYY-MM-DDTHH:MM:SS[.ffffff]' },
  DATE: { type: 'string', format: 'date', description: 'DATE: YYYY-MM-DD' },
  TIME: { type: 'string', description: 'TIME: HH:MM:SS[.ffffff]' },
  BYTES: { type: 'string', contentEncoding: 'base64' },
  INTERVAL: { type: 'string', description: 'INTERVAL: Y-M D H:M:S[.F]' },
  JSON: { type: 'string', contentMediaType: 'application/json' },
};

/** The JSON Schema of a value of `type` on the wire. Any value may be NULL. */
export function wireSchema(type: ColumnType): Json {
  switch (type.kind) {
    case 'scalar': {
      const schema = SCALAR_WIRE[type.name];
      return { ...schema, type: [schema.type, 'null'].flat() };
    }
    case 'array':
      return { type: ['array', 'null'], items: wireSchema(type.element) };
    case 'struct':
      return {
        type: ['object', 'null'],
        properties: Object.fromEntries(type.fields.map((field) => [field.name, wireSchema(field.type)])),
      };
    case 'unknown':
      return { description: type.description };
  }
}

/** How a value of `type` is written on the wire, in a few words. */
export function wireText(type: ColumnType): string {
  switch (type.kind) {
    case 'scalar': {
      const schema = SCALAR_WIRE[type.name];
      const detail = typeof schema.description === 'string' ? schema.description.replace(/^[A-Z]+: /, ' ') : '';
      return `${String([schema.type].flat()[0])}${detail ? ` (${detail.trim()})` : type.name === 'BYTES' ? ' (base64)' : ''}`;
    }
    case 'array':
      return type.element.kind === 'struct' ? 'array of objects (repeated record)' : `array of ${wireText(type.element)}`;
    case 'struct':
      return 'object';
    case 'unknown':
      return 'as the engine writes it';
  }
}
