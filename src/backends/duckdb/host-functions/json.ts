/**
 * BigQuery's JSON functions over JSON values (json-value.ts): the value at a path (paths reach
 * here as JSON Pointers, compiled from the query's JSONPath literals), conversions to SQL types
 * (strict and LAX_), SQL values to JSON (TO_JSON's rules: a TIMESTAMP as `...Z` text, BYTES as
 * base64, NaN as "NaN"), and the functions that build or change a value. Each follows the
 * reference's description; a JSON value in and out is its canonical text.
 */
import { canonicalJson, isJsonObject, parseJson, writeJson, type JsonObject, type JsonValue, type WideNumberMode } from '../../../sql/functions/json-value.js';
import { checkOutput, JSON_KEYS_OUTPUT_BOUND } from '../../../sql/dialects/duckdb/host-function-bounds.js';
import { HostFunctionError } from './errors.js';
import { roundTripDouble } from './format.js';
import type { SqlValue } from './sql-values.js';

const TWO_TO_53 = 2n ** 53n;

/**
 * A JSON Pointer's steps. `subscript`: the step was `[n]` in the JSONPath of a function that sets
 * a value (marked `~2`: sql/dialects/duckdb/json-path.ts), which reaches into an array only;
 * another step that is a number reaches into an array or an object.
 */
interface Step {
  key: string;
  subscript: boolean;
}

function steps(pointer: string): Step[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((step) => (step.startsWith('~2') ? { key: step.slice(2), subscript: true } : { key: step.replace(/~1/g, '/').replace(/~0/g, '~'), subscript: false }));
}

function isIndex(step: Step): boolean {
  return /^\d+$/.test(step.key);
}

function child(value: JsonValue | undefined, step: Step): JsonValue | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return isIndex(step) ? value[Number(step.key)] : undefined;
  if (isJsonObject(value) && !step.subscript) return value.get(step.key);
  return undefined;
}

function valueAt(json: JsonValue, pointer: string): JsonValue | undefined {
  let value: JsonValue | undefined = json;
  for (const step of steps(pointer)) value = child(value, step);
  return value;
}

function read(text: string): JsonValue {
  return parseJson(text, 'round');
}

/** JSON text from a STRING argument: invalid text is NULL (the STRING forms never fail on it). */
function readLenient(text: string, isJson: boolean): JsonValue | undefined {
  if (isJson) return read(text);
  try {
    return parseJson(text, 'round');
  } catch {
    return undefined;
  }
}

/** JSON_QUERY of a JSON value: the value at the path (JSON null included), NULL where there is none. */
export function jsonQuery(text: string, pointer: string): string | null {
  const value = valueAt(read(text), pointer);
  return value === undefined ? null : writeJson(value);
}

/** A JSON scalar as JSON_VALUE gives it: a string unquoted, a number or bool as its text; NULL for the rest. */
function scalarText(value: JsonValue | undefined): string | null {
  if (value === undefined || value === null || Array.isArray(value) || isJsonObject(value)) return null;
  return typeof value === 'string' ? value : writeJson(value);
}

export function jsonValue(text: string, pointer: string): string | null {
  return scalarText(valueAt(read(text), pointer));
}

/** JSON_QUERY_ARRAY: the elements of the array at the path as JSON text; NULL when it is no array. */
export function jsonQueryArray(text: string, pointer: string, isJson: boolean): string[] | null {
  const root = readLenient(text, isJson);
  const value = root === undefined ? undefined : valueAt(root, pointer);
  return Array.isArray(value) ? value.map(writeJson) : null;
}

/** JSON_VALUE_ARRAY: the scalars of the array at the path as text; NULL when it is no array or holds an array or object. */
export function jsonValueArray(text: string, pointer: string, isJson: boolean): (string | null)[] | null {
  const root = readLenient(text, isJson);
  const value = root === undefined ? undefined : valueAt(root, pointer);
  if (!Array.isArray(value) || value.some((item) => Array.isArray(item) || (item !== null && isJsonObject(item)))) return null;
  return value.map(scalarText);
}

export function jsonType(text: string): string {
  const value = read(text);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (isJsonObject(value)) return 'object';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return 'string';
  return 'number';
}

function typeName(value: JsonValue): string {
  return jsonType(writeJson(value)).toUpperCase();
}

/** BOOL, INT64, FLOAT64, STRING of a JSON value: an error for another JSON type (NULL under SAFE.). */
export function jsonBool(text: string): boolean {
  const value = read(text);
  if (typeof value !== 'boolean') throw new HostFunctionError(`The provided JSON input is not a boolean: ${typeName(value)}`);
  return value;
}

export function jsonInt64(text: string): bigint {
  const value = read(text);
  if (typeof value === 'bigint' && value >= -(2n ** 63n) && value < 2n ** 63n) return value;
  if (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < 2 ** 63) return BigInt(value);
  throw new HostFunctionError(`The provided JSON input is not an integer: ${writeJson(value)}`);
}

export function jsonFloat64(text: string, mode: string): number {
  if (mode !== 'exact' && mode !== 'round') throw new HostFunctionError(`wide_number_mode must be 'exact' or 'round', got '${mode}'`);
  const value = read(text);
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') {
    const double = Number(value);
    if (mode === 'exact' && BigInt(double) !== value) throw new HostFunctionError(`The JSON number ${value} cannot be converted to FLOAT64 without loss of precision`);
    return double;
  }
  throw new HostFunctionError(`The provided JSON input is not a number: ${typeName(value)}`);
}

export function jsonString(text: string): string {
  const value = read(text);
  if (typeof value !== 'string') throw new HostFunctionError(`The provided JSON input is not a string: ${typeName(value)}`);
  return value;
}

/** A number's text read as BigQuery's LAX_ conversions read one in a JSON string. */
function numberFromText(text: string): number | null {
  return /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/.test(text) ? Number(text) : null;
}

export function laxBool(text: string): boolean | null {
  const value = read(text);
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.toLowerCase() === 'true' ? true : value.toLowerCase() === 'false' ? false : null;
  if (typeof value === 'bigint') return value !== 0n;
  if (typeof value === 'number') return Number.isNaN(value) ? null : value !== 0;
  return null;
}

/** LAX_INT64: a number or numeric string rounded half away from zero; NULL beyond INT64 or for anything else. */
export function laxInt64(text: string): bigint | null {
  const value = read(text);
  let number: number | null;
  if (typeof value === 'bigint') return value >= -(2n ** 63n) && value < 2n ** 63n ? value : null;
  if (typeof value === 'boolean') return value ? 1n : 0n;
  if (typeof value === 'number') number = value;
  else if (typeof value === 'string') number = numberFromText(value);
  else return null;
  if (number === null || !Number.isFinite(number)) return null;
  const rounded = Math.sign(number) * Math.round(Math.abs(number));
  return Math.abs(rounded) < 2 ** 63 ? BigInt(rounded) : null;
}

export function laxFloat64(text: string): number | null {
  const value = read(text);
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string') {
    const lower = value.trim().toLowerCase();
    if (lower === 'nan') return NaN;
    if (lower === 'inf' || lower === '+inf' || lower === 'infinity' || lower === '+infinity') return Infinity;
    if (lower === '-inf' || lower === '-infinity') return -Infinity;
    return numberFromText(value);
  }
  return null;
}

export function laxString(text: string): string | null {
  const value = read(text);
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return roundTripDouble(value);
  return null;
}

/** A civil time's text with a fraction of 6 digits at most, trailing zeros dropped. */
function fraction(text: string): string {
  return text.replace(/\.(\d+)/, (_, digits: string) => {
    const trimmed = digits.slice(0, 6).replace(/0+$/, '');
    return trimmed === '' ? '' : `.${trimmed}`;
  });
}

/** A SQL value as TO_JSON makes it a JSON value. */
export function toJson(value: SqlValue, stringifyWideNumbers: boolean): JsonValue {
  switch (value.type) {
    case 'null':
      return null;
    case 'int64':
      return stringifyWideNumbers && (value.value > TWO_TO_53 || value.value < -TWO_TO_53) ? value.value.toString() : value.value;
    case 'float64':
      if (Number.isNaN(value.value)) return 'NaN';
      if (!Number.isFinite(value.value)) return value.value > 0 ? 'Infinity' : '-Infinity';
      if (stringifyWideNumbers && Number.isInteger(value.value) && Math.abs(value.value) > 2 ** 53) return roundTripDouble(value.value);
      return value.value;
    case 'numeric': {
      const text = value.text.includes('.') ? value.text.replace(/0+$/, '').replace(/\.$/, '') : value.text;
      // A NUMERIC is a JSON number; one no double holds exactly is text when asked.
      return stringifyWideNumbers && String(Number(text)) !== text ? text : parseJson(text, 'round');
    }
    case 'bool':
      return value.value;
    case 'string':
      return value.value;
    case 'bytes':
      return Buffer.from(value.value).toString('base64');
    case 'date':
      return value.text;
    case 'datetime':
      return fraction(value.text).replace(' ', 'T');
    case 'time':
      return fraction(value.text);
    case 'timestamp':
      return `${fraction(value.text).replace(' ', 'T').replace(/\+00$/, '')}Z`;
    case 'interval':
      throw new HostFunctionError('TO_JSON of an INTERVAL is not supported on the embedded engine');
    case 'json':
      return value.value;
    case 'array':
      return value.elements.map((element) => toJson(element, stringifyWideNumbers));
    case 'struct': {
      const object: JsonObject = new Map();
      for (const field of value.fields) if (!object.has(field.name)) object.set(field.name, toJson(field.value, stringifyWideNumbers));
      return object;
    }
  }
}

export function parseJsonText(text: string, mode: string): string {
  if (mode !== 'exact' && mode !== 'round') throw new HostFunctionError(`wide_number_mode must be 'exact' or 'round', got '${mode}'`);
  return canonicalJson(text, mode as WideNumberMode);
}

export function jsonArray(values: readonly SqlValue[]): string {
  return writeJson(values.map((value) => toJson(value, false)));
}

/** JSON_OBJECT: keys and values in pairs (the first of two equal keys kept); a NULL key is an error. */
export function jsonObject(keys: readonly (string | null)[], values: readonly SqlValue[]): string {
  if (keys.length !== values.length) throw new HostFunctionError('The number of keys and values must match');
  const object: JsonObject = new Map();
  keys.forEach((key, index) => {
    if (key === null) throw new HostFunctionError('A key cannot be NULL');
    if (!object.has(key)) object.set(key, toJson(values[index]!, false));
  });
  return writeJson(object);
}

/** The parent of the value at a pointer, created on the way when `create` (JSON_SET's rules), and the last step. */
function parentOf(root: { value: JsonValue }, pointer: string, create: boolean): { holder: JsonValue[] | JsonObject; step: string } | undefined {
  const path = steps(pointer);
  let container: { get(): JsonValue; set(value: JsonValue): void } = { get: () => root.value, set: (value) => (root.value = value) };
  for (const [index, step] of path.entries()) {
    let current = container.get();
    if (current === null && create) {
      // Only the functions that set a value create, and their pointers mark subscripts.
      current = step.subscript ? [] : new Map();
      container.set(current);
    }
    if (index === path.length - 1) {
      if (Array.isArray(current) && isIndex(step)) return { holder: current, step: step.key };
      if (current !== null && isJsonObject(current) && !step.subscript) return { holder: current, step: step.key };
      return undefined;
    }
    const holder = current;
    if (Array.isArray(holder) && isIndex(step)) {
      const at = Number(step.key);
      if (holder[at] === undefined) {
        if (!create) return undefined;
        while (holder.length < at) holder.push(null);
        holder[at] = null;
      }
      container = { get: () => holder[at]!, set: (value) => (holder[at] = value) };
    } else if (holder !== null && isJsonObject(holder) && !step.subscript) {
      const key = step.key;
      if (!holder.has(key)) {
        if (!create) return undefined;
        holder.set(key, null);
      }
      container = { get: () => holder.get(key)!, set: (value) => holder.set(key, value) };
    } else return undefined;
  }
  return undefined;
}

/** JSON_SET: each path set to its value in turn; a path that crosses a scalar is skipped; missing parents are created (unless told not to). */
export function jsonSet(text: string, pointers: readonly string[], values: readonly SqlValue[], create: boolean): string {
  const root = { value: read(text) };
  pointers.forEach((pointer, index) => {
    const value = toJson(values[index]!, false);
    if (pointer === '') {
      root.value = value;
      return;
    }
    const target = parentOf(root, pointer, create);
    if (target === undefined) return;
    if (Array.isArray(target.holder)) {
      const at = Number(target.step);
      if (at >= target.holder.length && !create) return;
      while (target.holder.length < at) target.holder.push(null);
      target.holder[at] = value;
    } else if (create || target.holder.has(target.step)) target.holder.set(target.step, value);
  });
  return writeJson(root.value);
}

/** JSON_REMOVE: each path's value removed in turn (an array's element taken out); removing the root is an error. */
export function jsonRemove(text: string, pointers: readonly string[]): string {
  const root = { value: read(text) };
  for (const pointer of pointers) {
    if (pointer === '') throw new HostFunctionError('JSON_REMOVE cannot remove the root of a JSON value');
    const target = parentOf(root, pointer, false);
    if (target === undefined) continue;
    if (Array.isArray(target.holder)) {
      const at = Number(target.step);
      if (at < target.holder.length) target.holder.splice(at, 1);
    } else target.holder.delete(target.step);
  }
  return writeJson(root.value);
}

/** JSON_ARRAY_APPEND and JSON_ARRAY_INSERT: values added to the array at each path (each element of an array value apart, unless told not to). */
export function jsonArrayAdd(text: string, pointers: readonly string[], values: readonly SqlValue[], each: boolean, insert: boolean): string {
  const root = { value: read(text) };
  pointers.forEach((pointer, index) => {
    const value = toJson(values[index]!, false);
    const added = each && Array.isArray(value) ? value : [value];
    if (!insert) {
      const array = pointer === '' ? root.value : (() => {
        const target = parentOf(root, pointer, false);
        if (target === undefined) return undefined;
        return Array.isArray(target.holder) ? target.holder[Number(target.step)] : target.holder.get(target.step);
      })();
      if (Array.isArray(array)) array.push(...added);
      else if (array === null && pointer !== '') {
        const target = parentOf(root, pointer, false)!;
        const fresh = [...added];
        if (Array.isArray(target.holder)) target.holder[Number(target.step)] = fresh;
        else target.holder.set(target.step, fresh);
      }
      return;
    }
    let target = parentOf(root, pointer, false);
    // Inserting into a JSON null makes it an array.
    if (target === undefined && valueAt(root.value, pointer.slice(0, pointer.lastIndexOf('/'))) === null) target = parentOf(root, pointer, true);
    if (target === undefined || !Array.isArray(target.holder) || !/^\d+$/.test(target.step)) return;
    const at = Number(target.step);
    while (target.holder.length < at) target.holder.push(null);
    target.holder.splice(at, 0, ...added);
  });
  return writeJson(root.value);
}

/** JSON_STRIP_NULLS: JSON nulls removed from objects (and arrays unless told not to), empty containers too when asked. */
export function jsonStripNulls(text: string, pointer: string, includeArrays: boolean, removeEmpty: boolean): string | null {
  const root = read(text);
  const strip = (value: JsonValue): JsonValue | undefined => {
    if (Array.isArray(value)) {
      const items = value.map((item) => (item === null && includeArrays ? undefined : strip(item))).filter((item): item is JsonValue => item !== undefined || !includeArrays);
      const kept = items.map((item) => (item === undefined ? null : item));
      return removeEmpty && includeArrays && kept.length === 0 ? undefined : kept;
    }
    if (value !== null && isJsonObject(value)) {
      const object: JsonObject = new Map();
      for (const [key, member] of value) {
        if (member === null) continue;
        const stripped = strip(member);
        if (stripped !== undefined) object.set(key, stripped);
      }
      return removeEmpty && object.size === 0 ? undefined : object;
    }
    return value;
  };
  if (pointer === '') {
    const stripped = strip(root);
    return stripped === undefined ? 'null' : writeJson(stripped);
  }
  const holder = { value: root };
  const target = parentOf(holder, pointer, false);
  if (target === undefined) return writeJson(root);
  const current = Array.isArray(target.holder) ? target.holder[Number(target.step)] : target.holder.get(target.step);
  if (current === undefined) return writeJson(root);
  const stripped = strip(current);
  if (Array.isArray(target.holder)) target.holder[Number(target.step)] = stripped ?? null;
  else if (stripped === undefined) target.holder.delete(target.step);
  else target.holder.set(target.step, stripped);
  return writeJson(holder.value);
}

/** JSON_KEYS: the keys of objects, dotted by their path (down to max_depth), sorted, each once. */
export function jsonKeys(text: string, maxDepth: bigint | null, mode: string): string[] {
  if (!['strict', 'lax', 'lax recursive'].includes(mode)) throw new HostFunctionError(`mode must be 'strict', 'lax' or 'lax recursive', got '${mode}'`);
  const keys = new Set<string>();
  const depthLimit = maxDepth === null ? Infinity : Number(maxDepth);
  if (depthLimit <= 0) throw new HostFunctionError('max_depth must be positive');
  let written = 0;
  const walk = (value: JsonValue, prefix: string, depth: number, inArray: number) => {
    if (depth > depthLimit) return;
    if (Array.isArray(value)) {
      if (mode === 'strict' || (mode === 'lax' && inArray > 0)) return;
      for (const item of value) walk(item, prefix, depth, inArray + 1);
      return;
    }
    if (value === null || !isJsonObject(value)) return;
    for (const [key, member] of value) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? key : JSON.stringify(key);
      // Each path repeats its parent's: refused before deep nesting makes the text quadratic.
      written += prefix.length + name.length + 1;
      checkOutput('JSON_KEYS', 'of paths for one value', written, JSON_KEYS_OUTPUT_BOUND);
      const path = prefix === '' ? name : `${prefix}.${name}`;
      keys.add(path);
      walk(member, path, depth + 1, 0);
    }
  };
  walk(read(text), '', 1, 0);
  return [...keys].sort();
}

/** JSON_FLATTEN: the scalars (and empty containers' absence) of a value, arrays flattened, in order. */
export function jsonFlatten(text: string): string[] {
  const out: string[] = [];
  const walk = (value: JsonValue) => {
    if (Array.isArray(value)) value.forEach(walk);
    else out.push(writeJson(value));
  };
  walk(read(text));
  return out;
}
