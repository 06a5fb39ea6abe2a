/**
 * How a test's expected rows are compared with a result, and how both are shown. A test writes
 * only what it checks: a row lists the columns it checks, an object the fields it checks (an
 * array's length is always checked), and a TIMESTAMP may be ISO 8601 text with a zone where
 * the wire has Unix microseconds.
 */
import type { ColumnField, ColumnType, WireValue } from '../../core/types.js';
import { microsText, timestampMicros } from '../serve/timestamp.js';

type Plain = Record<string, unknown>;

function isPlainObject(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `actual` has everything `expected` says. */
export function matches(expected: unknown, actual: WireValue | undefined): boolean {
  if (actual === undefined) return false;
  if (expected === null || actual === null) return expected === actual;
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && expected.every((item, index) => matches(item, actual[index]));
  }
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return false;
    return Object.entries(expected).every(([key, value]) => Object.hasOwn(actual, key) && matches(value, actual[key] as WireValue));
  }
  if (typeof expected === 'string' && typeof actual === 'number') return timestampMicros(expected) === actual;
  return expected === actual;
}

/** What the expected values say about how to show actual ones: which fields, and which are timestamps. */
export type Template =
  | { kind: 'object'; fields: Map<string, Template> }
  | { kind: 'array'; element: Template | undefined }
  | { kind: 'timestamp' }
  | { kind: 'value' };

export function templateOf(values: readonly unknown[]): Template {
  let template: Template = { kind: 'value' };
  for (const value of values) template = merge(template, single(value));
  return template;
}

/** How whole rows of these columns are written: every column, each TIMESTAMP as ISO text. */
export function templateOfColumns(columns: readonly ColumnField[]): Template {
  return { kind: 'object', fields: new Map(columns.map((column) => [column.name, typeTemplate(column.type)])) };
}

function typeTemplate(type: ColumnType): Template {
  switch (type.kind) {
    case 'array':
      return { kind: 'array', element: typeTemplate(type.element) };
    case 'struct':
      return templateOfColumns(type.fields);
    case 'scalar':
      return type.name === 'TIMESTAMP' ? { kind: 'timestamp' } : { kind: 'value' };
    case 'unknown':
      return { kind: 'value' };
  }
}

function single(value: unknown): Template {
  if (Array.isArray(value)) return { kind: 'array', element: value.length ? templateOf(value) : undefined };
  if (isPlainObject(value)) return { kind: 'object', fields: new Map(Object.entries(value).map(([key, field]) => [key, single(field)])) };
  if (typeof value === 'string' && timestampMicros(value) !== undefined) return { kind: 'timestamp' };
  return { kind: 'value' };
}

function merge(a: Template, b: Template): Template {
  if (a.kind === 'value') return b;
  if (b.kind === 'value') return a;
  if (a.kind === 'object' && b.kind === 'object') {
    const fields = new Map(a.fields);
    for (const [key, field] of b.fields) fields.set(key, fields.has(key) ? merge(fields.get(key)!, field) : field);
    return { kind: 'object', fields };
  }
  if (a.kind === 'array' && b.kind === 'array') {
    return { kind: 'array', element: a.element && b.element ? merge(a.element, b.element) : (a.element ?? b.element) };
  }
  return a;
}

/** `actual` cut down to the fields the template names, its timestamps as ISO text where the test wrote them so. */
export function shownLike(actual: WireValue | undefined, template: Template): unknown {
  if (actual === undefined || actual === null) return actual;
  switch (template.kind) {
    case 'object': {
      if (!isPlainObject(actual)) return actual;
      const shown: Plain = {};
      for (const [key, field] of template.fields) if (Object.hasOwn(actual, key)) shown[key] = shownLike(actual[key] as WireValue, field);
      return shown;
    }
    case 'array':
      return Array.isArray(actual) && template.element ? actual.map((item) => shownLike(item, template.element!)) : actual;
    case 'timestamp':
      return typeof actual === 'number' ? microsText(actual) : actual;
    case 'value':
      return actual;
  }
}

/** A value in YAML's flow style, as a test file writes rows: `{id: "a-1", n: 2}`. */
export function flowText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(flowText).join(', ')}]`;
  if (isPlainObject(value)) {
    return `{${Object.entries(value).map(([key, field]) => `${/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? key : JSON.stringify(key)}: ${flowText(field)}`).join(', ')}}`;
  }
  return value === undefined ? '~' : JSON.stringify(value);
}
