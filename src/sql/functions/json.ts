/**
 * JSON functions, of JSON-formatted STRINGs (text that is not JSON gives NULL) and of the JSON
 * type. A JSON value is held in DuckDB as its canonical text (json-value.ts) typed JSON, which
 * the host functions read and write; where the query does not say whether an argument is JSON or
 * a STRING, DuckDB picks the form when it runs, and the result takes the argument's type.
 */
import { hostCall, hostValues, type HostFunctionName } from '../dialects/duckdb/host-functions.js';
import { InvalidJsonPath, jsonPointer, type JsonPathQuoting } from '../dialects/duckdb/json-path.js';
import { quoteString } from '../dialects/duckdb/quote.js';
import { byType, computedOnce, float64Text, raise, repeatable, secondFraction, timeText } from '../dialects/duckdb/semantics.js';
import { literalString, literalValue } from './arguments.js';
import { FIRST, MANY, scalar, type CallContext, type FunctionSpec, type Render } from './call.js';

/** The JSON Pointer of the JSONPath literal at `index` (`$` when absent); a path BigQuery refuses is the query's mistake. */
function pointerAt(call: CallContext, index: number, quoting: JsonPathQuoting, markSubscripts = false): string {
  if (call.argNodes[index] === undefined) return '';
  const path = literalString(call, index, 'a JSONPath');
  if (/^\s*lax\b/i.test(path)) return call.refuse(`${call.name.toUpperCase()} with a lax JSONPath`);
  try {
    return jsonPointer(path, quoting, markSubscripts);
  } catch (error) {
    if (error instanceof InvalidJsonPath) return call.invalid(error.message);
    throw error;
  }
}

function pointer(call: CallContext, quoting: JsonPathQuoting): string {
  return quoteString(pointerAt(call, 1, quoting));
}

/** BigQuery reads a JSON-formatted STRING leniently: text that is not JSON gives NULL, not an error. */
function whenJson(call: CallContext, condition: (json: string) => string, value: (json: string) => string): string {
  return computedOnce(call.args[0]!, (json) => `(CASE WHEN json_valid(${json})${condition(json)} THEN ${value(json)} END)`);
}

/** The JSON text at the path; JSON null is SQL NULL (for STRING input). */
function jsonQuery(quoting: JsonPathQuoting): Render {
  return (call) => {
    const path = pointer(call, quoting);
    return whenJson(call, () => '', (json) => `nullif(CAST(json_extract(${json}, ${path}) AS VARCHAR), 'null')`);
  };
}

/** The scalar at the path as a STRING, unquoted; NULL for an object, an array or JSON null. */
function jsonValue(quoting: JsonPathQuoting): Render {
  return (call) => {
    const path = pointer(call, quoting);
    return whenJson(call, () => '', (json) => `json_extract_string(json_value(${json}, ${path}), '')`);
  };
}

function jsonArray(quoting: JsonPathQuoting): Render {
  return (call) => {
    const path = pointer(call, quoting);
    return whenJson(call, (json) => ` AND json_type(${json}, ${path}) = 'ARRAY'`, (json) => `CAST(CAST(json_extract(${json}, ${path}) AS JSON[]) AS VARCHAR[])`);
  };
}

/** Types a nested value's JSON is written differently for by DuckDB's to_json than by BigQuery. */
const TO_JSON_DIFFERENT_LEAVES = /\b(DOUBLE|FLOAT|DECIMAL|HUGEINT|TIMESTAMP|TIME|INTERVAL|BLOB)\b/;

function toJsonString(call: CallContext): string {
  if (call.argNodes[1] !== undefined && literalValue(call, 1) !== false) return call.refuse('TO_JSON_STRING with pretty_print');
  const node = call.argNodes[0]!;
  if (node.kind === 'literal' && node.type === 'null') return `'null'`;
  const text = byType(call.args[0]!, call.typeOf(node), {
    int64: (v) => `(CASE WHEN abs(${v}) <= 9007199254740992 THEN CAST(${v} AS VARCHAR) ELSE '"' || CAST(${v} AS VARCHAR) || '"' END)`,
    float64: (v) => `(CASE WHEN isnan(${v}) THEN '"NaN"' WHEN isinf(${v}) THEN (CASE WHEN ${v} > 0 THEN '"Infinity"' ELSE '"-Infinity"' END) ELSE ${float64Text(v, call.refuse)} END)`,
    numeric: (v) => `(CASE WHEN ${v} = round(${v}) AND abs(${v}) <= 9007199254740992 THEN CAST(CAST(${v} AS BIGINT) AS VARCHAR) ELSE '"' || CAST(${v} AS VARCHAR) || '"' END)`,
    timestamp: (v) => `('"' || strftime(${v}, '%Y-%m-%dT%H:%M:%S') || ${secondFraction(v, call.refuse)} || 'Z"')`,
    datetime: (v) => `('"' || strftime(${v}, '%Y-%m-%dT%H:%M:%S') || ${secondFraction(v, call.refuse)} || '"')`,
    time: (v) => `('"' || ${timeText(v, call.refuse)} || '"')`,
    otherwise: (v) => {
      const value = repeatable(v, call.refuse);
      const unsupported = raise('TO_JSON_STRING of an ARRAY or STRUCT holding FLOAT64, NUMERIC, TIMESTAMP, DATETIME or TIME values is not supported on the embedded engine', 'VARCHAR');
      return `(CASE WHEN regexp_matches(typeof(${value}), '${TO_JSON_DIFFERENT_LEAVES.source}') THEN ${unsupported} ELSE CAST(to_json(${value}) AS VARCHAR) END)`;
    },
  }, call.refuse);
  return `coalesce(${text}, 'null')`;
}


type JsonInput = 'json' | 'string' | undefined;

function inputOf(call: CallContext): JsonInput {
  const type = call.argNodes[0] && call.typeOf(call.argNodes[0]);
  return type === 'json' ? 'json' : type === 'string' ? 'string' : undefined;
}

/**
 * A function of a JSON value or a JSON-formatted STRING: `json` writes the JSON form (text in, text
 * out), `text` the STRING form. Unknown, DuckDB picks by the argument's type, and a result that
 * `follows` the argument is typed as it is (`CASE WHEN false THEN x ...` gives the CASE x's type).
 */
function jsonOrText(call: CallContext, json: (text: string) => string, text: (call: CallContext) => string, follows: 'value' | 'elements' | false): string {
  const input = inputOf(call);
  if (input === 'json') {
    const jsonForm = json(`CAST(${call.args[0]} AS VARCHAR)`);
    return follows === 'value' ? `CAST(${jsonForm} AS JSON)` : follows === 'elements' ? `CAST(${jsonForm} AS JSON[])` : jsonForm;
  }
  if (input === 'string') return text(call);
  return computedOnce(call.args[0]!, (value) => {
    const picked = `(CASE WHEN typeof(${value}) = 'JSON' THEN ${json(`CAST(${value} AS VARCHAR)`)} ELSE ${text({ ...call, args: [value, ...call.args.slice(1)] })} END)`;
    if (follows === false) return picked;
    return `(CASE WHEN false THEN ${follows === 'value' ? value : `[${value}]`} ELSE ${picked} END)`;
  });
}

function query(quoting: JsonPathQuoting): Render {
  return (call) => jsonOrText(call, (json) => hostCall('json_query', json, pointer(call, quoting)), (bound) => jsonQuery(quoting)(bound), 'value');
}

function scalarValue(quoting: JsonPathQuoting): Render {
  return (call) => jsonOrText(call, (json) => hostCall('json_value', json, pointer(call, quoting)), (bound) => jsonValue(quoting)(bound), false);
}

function elements(quoting: JsonPathQuoting, kind: 'query' | 'value'): Render {
  return (call) => {
    const host: HostFunctionName = kind === 'query' ? 'json_query_array' : 'json_value_array';
    const path = pointer(call, quoting);
    const follows = kind === 'query' ? 'elements' : false;
    const text = (bound: CallContext) => (kind === 'query' && quoting === 'bracket' ? jsonArray(quoting)(bound) : hostCall(host, bound.args[0]!, path, 'false'));
    return jsonOrText(call, (json) => hostCall(host, json, path, 'true'), text, follows);
  };
}

/** A JSON argument (its canonical text); a STRING argument is refused where BigQuery wants JSON. */
function jsonArgument(call: CallContext, index = 0): string {
  const type = call.argNodes[index] && call.typeOf(call.argNodes[index]);
  if (type !== undefined && type !== 'json') return call.invalid(`${call.name.toUpperCase()} takes a JSON value, not ${type.toUpperCase()}`);
  return `CAST(${call.args[index]} AS VARCHAR)`;
}

/** A literal string option (a named argument), checked against the values BigQuery accepts. */
function option(call: CallContext, name: string, fallback: string): string {
  const node = call.named[name]?.node;
  if (node === undefined) return quoteString(fallback);
  return call.named[name]!.sql;
}

function booleanOption(call: CallContext, name: string, fallback: boolean): string {
  return call.named[name]?.sql ?? (fallback ? 'true' : 'false');
}

/** JSON_SET, JSON_ARRAY_APPEND, JSON_ARRAY_INSERT: path and value pairs after the JSON value; paths are literals. */
function pathValuePairs(call: CallContext): { pointers: string; values: [string, string] } {
  const rest = call.argNodes.length - 1;
  if (rest % 2 !== 0) return call.invalid(`${call.name.toUpperCase()} takes path and value pairs`);
  const pointers: string[] = [];
  const values: string[] = [];
  for (let index = 1; index < call.args.length; index += 2) {
    // A subscript marked: these set a value, and `[n]` reaches into an array alone.
    pointers.push(quoteString(pointerAt(call, index, 'double', true)));
    values.push(repeatable(call.args[index + 1]!, call.refuse));
  }
  return { pointers: `CAST([${pointers.join(', ')}] AS VARCHAR[])`, values: hostValues(values) };
}

function jsonSet(call: CallContext): string {
  const { pointers, values } = pathValuePairs(call);
  return `CAST(${hostCall('json_set', jsonArgument(call), pointers, ...values, booleanOption(call, 'create_if_missing', true))} AS JSON)`;
}

function jsonArrayAdd(insert: boolean): Render {
  return (call) => {
    const { pointers, values } = pathValuePairs(call);
    const each = booleanOption(call, insert ? 'insert_each_element' : 'append_each_element', true);
    return `CAST(${hostCall('json_array_add', jsonArgument(call), pointers, ...values, each, insert ? 'true' : 'false')} AS JSON)`;
  };
}

function jsonRemove(call: CallContext): string {
  const pointers = call.argNodes.slice(1).map((_, index) => quoteString(pointerAt(call, index + 1, 'double')));
  return `CAST(${hostCall('json_remove', jsonArgument(call), `CAST([${pointers.join(', ')}] AS VARCHAR[])`)} AS JSON)`;
}

function jsonStripNulls(call: CallContext): string {
  const pointerText = quoteString(pointerAt(call, 1, 'double'));
  return `CAST(${hostCall('json_strip_nulls', jsonArgument(call), pointerText, booleanOption(call, 'include_arrays', true), booleanOption(call, 'remove_empty', false))} AS JSON)`;
}

/** JSON_OBJECT of key and value pairs, or of an array of keys and an array of values. */
function jsonObject(call: CallContext): string {
  const first = call.argNodes[0];
  const arrays = call.args.length === 2 && first !== undefined && (first.kind === 'array' || (first.kind === 'cast' && first.type.name === 'ARRAY') || (first.kind === 'call' && ['array_agg', 'split', 'array_concat', 'array_reverse'].includes(first.name)));
  if (arrays) {
    const values = repeatable(call.args[1]!, call.refuse);
    const keys = repeatable(call.args[0]!, call.refuse);
    const missing = (array: string, what: string) => `WHEN ${array} IS NULL THEN ${raise(`The ${what} array cannot be NULL`, 'VARCHAR')}`;
    const host = hostCall('json_object', `CAST(${keys} AS VARCHAR[])`, `list_transform(${values}, __v -> CAST(to_json(__v) AS VARCHAR))`, `list_transform(${values}, __v -> typeof(__v))`);
    return `CAST((CASE ${missing(keys, 'keys')} ${missing(values, 'values')} ELSE ${host} END) AS JSON)`;
  }
  if (call.args.length % 2 !== 0) return call.invalid('JSON_OBJECT takes key and value pairs');
  const keys: string[] = [];
  const values: string[] = [];
  for (let index = 0; index < call.args.length; index += 2) {
    const key = repeatable(call.args[index]!, call.refuse);
    // A key that is an array would be written as its text: an error instead, when it runs.
    keys.push(call.argNodes[index]?.kind === 'column' ? `(CASE WHEN typeof(${key}) LIKE '%[]' THEN ${raise('JSON_OBJECT of an array of keys: write the array itself as the first argument', 'VARCHAR')} ELSE CAST(${key} AS VARCHAR) END)` : `CAST(${key} AS VARCHAR)`);
    values.push(repeatable(call.args[index + 1]!, call.refuse));
  }
  return `CAST(${hostCall('json_object', `CAST([${keys.join(', ')}] AS VARCHAR[])`, ...hostValues(values))} AS JSON)`;
}

function toJson(call: CallContext): string {
  return `CAST(${hostCall('to_json', ...hostValues([repeatable(call.args[0]!, call.refuse)]), booleanOption(call, 'stringify_wide_numbers', false))} AS JSON)`;
}

/** STRING of a JSON string value, or of a TIMESTAMP (STRING(timestamp[, zone]), times.ts). */
export function jsonString(call: CallContext): string {
  return hostCall('json_string', jsonArgument(call));
}

function conversion(host: HostFunctionName, wide = false): Render {
  return (call) => (wide ? hostCall(host, jsonArgument(call), option(call, 'wide_number_mode', 'round')) : hostCall(host, jsonArgument(call)));
}

function jsonKeys(call: CallContext): string {
  return hostCall('json_keys', jsonArgument(call), call.args[1] ?? 'CAST(NULL AS BIGINT)', option(call, 'mode', 'strict'));
}

export const JSON_FUNCTIONS: ReadonlyMap<string, FunctionSpec> = new Map<string, FunctionSpec>([
  ['json_query', scalar('the JSON at a JSONPath (`$.a."b.c"[0]`): of a JSON value a JSON value; of a STRING its text, NULL for JSON null or a missing path', [2, 2], query('double'), { returns: FIRST })],
  ['json_value', scalar('the scalar at a JSONPath (`$` by default) as an unquoted STRING; NULL for an object, array or JSON null', [1, 2], scalarValue('double'), { returns: 'string' })],
  ['json_extract', scalar('JSON_QUERY with the legacy path syntax (`$[\'b.c\']`)', [2, 2], query('bracket'), { returns: FIRST })],
  ['json_extract_scalar', scalar('JSON_VALUE with the legacy path syntax', [1, 2], scalarValue('bracket'), { returns: 'string' })],
  ['json_extract_array', scalar('the elements of the JSON array at a path, each as JSON; NULL when it is no array', [1, 2], elements('bracket', 'query'))],
  ['json_query_array', scalar('the elements of the JSON array at a JSONPath, each as JSON; NULL when it is no array', [1, 2], elements('double', 'query'))],
  ['json_value_array', scalar('the scalars of the JSON array at a JSONPath as STRINGs; NULL when it is no array or holds an array or object', [1, 2], elements('double', 'value'))],
  ['json_extract_string_array', scalar('JSON_VALUE_ARRAY with the legacy path syntax', [1, 2], elements('bracket', 'value'))],
  ['to_json_string', scalar('the value as JSON text (TIMESTAMP as `"2024-05-01T10:00:00Z"`, INT64 beyond 2^53 quoted)', [1, 2], toJsonString, { returns: 'string' })],
  ['parse_json', scalar('the JSON value of JSON text (an error when it is none; wide_number_mode \'exact\' or \'round\')', [1, 1], (call) => `CAST(${hostCall('json_parse', call.args[0]!, option(call, 'wide_number_mode', 'exact'))} AS JSON)`, { returns: 'json', named: ['wide_number_mode'] })],
  ['to_json', scalar('a SQL value as a JSON value (stringify_wide_numbers writes numbers beyond 2^53 as text)', [1, 1], toJson, { returns: 'json', named: ['stringify_wide_numbers'] })],
  ['json_type', scalar('the JSON value\'s type: object, array, string, number, boolean or null', [1, 1], (call) => hostCall('json_type', jsonArgument(call)), { returns: 'string' })],
  ['bool', scalar('a JSON boolean as BOOL (an error for another JSON type)', [1, 1], conversion('json_bool'), { returns: 'bool' })],
  ['int64', scalar('a JSON integer as INT64 (an error for another JSON type)', [1, 1], conversion('json_int64'), { returns: 'int64' })],
  ['float64', scalar('a JSON number as FLOAT64 (wide_number_mode \'round\' or \'exact\')', [1, 1], conversion('json_float64', true), { returns: 'float64', named: ['wide_number_mode'] })],
  ['lax_bool', scalar('a JSON value as BOOL where it can be read as one (true, "true", a non-zero number), else NULL', [1, 1], conversion('lax_bool'), { returns: 'bool' })],
  ['lax_int64', scalar('a JSON value as INT64 where it can be read as one (a number or numeric text, rounded), else NULL', [1, 1], conversion('lax_int64'), { returns: 'int64' })],
  ['lax_float64', scalar('a JSON value as FLOAT64 where it can be read as one, else NULL', [1, 1], conversion('lax_float64'), { returns: 'float64' })],
  ['lax_string', scalar('a JSON scalar as STRING (a number or bool as its text), else NULL', [1, 1], conversion('lax_string'), { returns: 'string' })],
  ['json_array', scalar('a JSON array of SQL values', [0, MANY], (call) => `CAST(${hostCall('json_array', ...hostValues(call.args.map((arg) => repeatable(arg, call.refuse))))} AS JSON)`, { returns: 'json' })],
  ['json_object', scalar('a JSON object of key and value pairs, or of an array of keys and one of values (the first of two equal keys kept)', [0, MANY], jsonObject, { returns: 'json' })],
  ['json_set', scalar('the JSON value with each path set to a value (missing parents created unless create_if_missing => FALSE)', [3, MANY], jsonSet, { returns: 'json', named: ['create_if_missing'] })],
  ['json_remove', scalar('the JSON value without what each path reaches', [2, MANY], jsonRemove, { returns: 'json' })],
  ['json_strip_nulls', scalar('the JSON value without JSON nulls (in arrays too unless include_arrays => FALSE; empty containers too with remove_empty => TRUE)', [1, 2], jsonStripNulls, { returns: 'json', named: ['include_arrays', 'remove_empty'] })],
  ['json_array_append', scalar('the JSON value with values appended to the array at each path', [3, MANY], jsonArrayAdd(false), { returns: 'json', named: ['append_each_element'] })],
  ['json_array_insert', scalar('the JSON value with values inserted into the array at each path\'s position', [3, MANY], jsonArrayAdd(true), { returns: 'json', named: ['insert_each_element'] })],
  ['json_keys', scalar('the keys of the JSON value\'s objects, dotted by their path, sorted (to a depth; mode strict, lax or lax recursive)', [1, 2], jsonKeys, { named: ['mode'] })],
  ['json_flatten', scalar('the JSON value\'s scalars and objects, nested arrays flattened', [1, 1], (call) => `CAST(${hostCall('json_flatten', jsonArgument(call))} AS JSON[])`)],
]);
