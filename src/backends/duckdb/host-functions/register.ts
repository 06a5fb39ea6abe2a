/**
 * The host functions (sql/dialects/duckdb/host-functions.ts) registered on a DuckDB instance:
 * each declared function with its implementation here, converted between DuckDB's values and
 * plain ones (BLOB as bytes, LIST as an array). DuckDB calls them a block of rows at a time, on
 * this thread, and waits: a block's work is measured from its arguments before it is done, and
 * refused past its bound (sql/dialects/duckdb/host-function-bounds.ts); rows stop once the query's
 * time is up (watch.ts), and blocks stop once they have held the event loop past its bound with no
 * turn between them (watch.ts says how that happens). An error one raises fails the query with its message (TRY, for SAFE.,
 * makes it NULL; a bound or the timeout still fails it, through the watch).
 */
import { BIGINT, BLOB, BOOLEAN, DOUBLE, DuckDBBlobValue, DuckDBListValue, DuckDBScalarFunction, LIST, type DuckDBScalarMainFunction, listValue, VARCHAR, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '#duckdb-api';
import { HOST_FUNCTIONS, hostFunctionName, type HostFunctionName, type HostType } from '../../../sql/dialects/duckdb/host-functions.js';
import { blockMeter, HELD_LOOP_BLOCKS, HELD_LOOP_BOUND_MS, heldLoopError, HOST_FUNCTION_BOUNDS, HostBoundError, lengthOf, measure, type HostArgument } from '../../../sql/dialects/duckdb/host-function-bounds.js';
import { bignumericDiv, bignumericDivide, bignumericMod, bignumericMultiply, bignumericOfDouble, bignumericRound } from './bignumeric.js';
import { farmFingerprint, fromBase32, sha512, toBase32 } from './encoding.js';
import { containsSubstr } from './contains.js';
import { format } from './format.js';
import { ipFromString, ipNetMask, ipToString, ipTrunc, ipv4FromInt64, ipv4ToInt64 } from './net.js';
import { parseBignumericUnits, parseNumeric } from './numeric.js';
import { castFormatDecimal, castFormatFloat } from './number-format.js';
import { jsonArray, jsonArrayAdd, jsonBool, jsonFlatten, jsonFloat64, jsonInt64, jsonKeys, jsonObject, jsonQuery, jsonQueryArray, jsonRemove, jsonSet, jsonString, jsonStripNulls, jsonType, jsonValue, jsonValueArray, laxBool, laxFloat64, laxInt64, laxString, parseJsonText, toJson } from './json.js';
import { writeJson } from '../../../sql/functions/json-value.js';
import { readSqlValue, type SqlValue } from './sql-values.js';
import { editDistance, initcap, instr, normalize, regexpInstr, safeConvertBytes, soundex, translate } from './text.js';
import { blockRan, heldPast, hostWatch, type HostWatch } from './watch.js';

// Each implementation takes the declared parameters' values, which the declaration types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Implementation = (...args: any[]) => HostArgument;

const IMPLEMENTATIONS: { readonly [K in HostFunctionName]: Implementation } = {
  lower: (text: string) => text.toLowerCase(),
  upper: (text: string) => text.toUpperCase(),
  initcap: (text: string, delimiters: string) => initcap(text, delimiters),
  initcap_default: (text: string) => initcap(text),
  normalize: (text: string, form: string, casefold: boolean) => normalize(text, form, casefold),
  soundex,
  translate,
  instr: (text: string, sub: string, position: bigint, occurrence: bigint) => instr([...text], [...sub], position, occurrence),
  instr_bytes: (bytes: Uint8Array, sub: Uint8Array, position: bigint, occurrence: bigint) => instr([...bytes], [...sub], position, occurrence),
  edit_distance: (a: string, b: string) => editDistance([...a], [...b]),
  edit_distance_bytes: (a: Uint8Array, b: Uint8Array) => editDistance([...a], [...b]),
  regexp_instr: regexpInstr,
  safe_convert_bytes: safeConvertBytes,
  to_base32: toBase32,
  from_base32: fromBase32,
  sha512,
  farm_fingerprint: farmFingerprint,
  format: (pattern: string, values: readonly (string | null)[], types: readonly string[]) => format(pattern, values.map((value, index) => readSqlValue(value, types[index]!))),
  json_parse: parseJsonText,
  to_json: (values: readonly (string | null)[], types: readonly string[], stringify: boolean) => writeJson(toJson(readSqlValue(values[0]!, types[0]!), stringify)),
  json_query: jsonQuery,
  json_value: jsonValue,
  json_query_array: jsonQueryArray,
  json_value_array: jsonValueArray,
  json_type: jsonType,
  json_bool: jsonBool,
  json_int64: jsonInt64,
  json_float64: jsonFloat64,
  json_string: jsonString,
  lax_bool: laxBool,
  lax_int64: laxInt64,
  lax_float64: laxFloat64,
  lax_string: laxString,
  json_array: (values: readonly (string | null)[], types: readonly string[]) => jsonArray(sqlValues(values, types)),
  json_object: (keys: readonly (string | null)[], values: readonly (string | null)[], types: readonly string[]) => jsonObject(keys, sqlValues(values, types)),
  json_set: (json: string, pointers: readonly string[], values: readonly (string | null)[], types: readonly string[], create: boolean) => jsonSet(json, pointers, sqlValues(values, types), create),
  json_remove: jsonRemove,
  json_array_add: (json: string, pointers: readonly string[], values: readonly (string | null)[], types: readonly string[], each: boolean, insert: boolean) => jsonArrayAdd(json, pointers, sqlValues(values, types), each, insert),
  json_strip_nulls: jsonStripNulls,
  json_keys: (json: string | null, maxDepth: bigint | null, mode: string | null) => (json === null ? null : jsonKeys(json, maxDepth, mode ?? 'strict')),
  json_flatten: jsonFlatten,
  ip_from_string: ipFromString,
  ip_to_string: ipToString,
  ipv4_from_int64: ipv4FromInt64,
  ipv4_to_int64: ipv4ToInt64,
  ip_net_mask: ipNetMask,
  ip_trunc: ipTrunc,
  parse_numeric: parseNumeric,
  cast_format_decimal: castFormatDecimal,
  cast_format_float: castFormatFloat,
  parse_bignumeric: parseBignumericUnits,
  bignumeric_multiply: bignumericMultiply,
  bignumeric_divide: bignumericDivide,
  bignumeric_div: bignumericDiv,
  bignumeric_mod: bignumericMod,
  bignumeric_round: bignumericRound,
  bignumeric_of_double: bignumericOfDouble,
  contains_substr: (values: readonly (string | null)[], types: readonly string[], search: string, scope: string) => containsSubstr(readSqlValue(values[0]!, types[0]!), search, scope),
};

const TYPES: Readonly<Record<HostType, DuckDBType>> = {
  VARCHAR,
  BLOB,
  BIGINT,
  BOOLEAN,
  DOUBLE,
  'VARCHAR[]': LIST(VARCHAR),
  'BIGINT[]': LIST(BIGINT),
};

function fromDuckDb(value: DuckDBValue): HostArgument {
  if (value instanceof DuckDBBlobValue) return value.bytes;
  if (value instanceof DuckDBListValue) return value.items.map(fromDuckDb);
  return value as HostArgument;
}

function toDuckDb(value: HostArgument): DuckDBValue {
  if (value instanceof Uint8Array) return new DuckDBBlobValue(value);
  if (Array.isArray(value)) return listValue(value.map(toDuckDb));
  return value as DuckDBValue;
}

function sqlValues(values: readonly (string | null)[], types: readonly string[]): SqlValue[] {
  return values.map((value, index) => readSqlValue(value, types[index]!));
}

export function registerHostFunctions(connection: DuckDBConnection, watch: HostWatch = hostWatch()): void {
  for (const [name, signature] of Object.entries(HOST_FUNCTIONS) as [HostFunctionName, (typeof HOST_FUNCTIONS)[HostFunctionName]][]) {
    const implementation = IMPLEMENTATIONS[name];
    const { called, work } = HOST_FUNCTION_BOUNDS[name];
    const takesNulls = 'nulls' in signature && signature.nulls === true;
    /** One block's rows, each bounded before it is computed. */
    const runBlock: DuckDBScalarMainFunction = (info, input, output) => {
      const columns = signature.parameters.map((_, index) => input.getColumnVector(index));
      const block = blockMeter(name);
      for (let row = 0; row < input.rowCount; row++) {
        if (performance.now() > watch.deadline) {
          watch.expired = true;
          info.setError(`${called}: the query's time is up`);
          return;
        }
        try {
          const args = columns.map((column) => fromDuckDb(column.getItem(row)));
          // DuckDB folds a constant NULL argument, but hands a function the NULL rows of a
          // column: a NULL in is NULL out unless the function says it takes NULLs.
          if (!takesNulls && args.includes(null)) {
            output.setItem(row, null);
            continue;
          }
          block.add(measure(work, args));
          const result = implementation(...args);
          block.add(lengthOf(result));
          output.setItem(row, toDuckDb(result));
        } catch (error) {
          const message = (error as Error).message;
          if (error instanceof HostBoundError) watch.bound ??= message;
          watch.failure ??= message;
          info.setError(message);
          return;
        }
      }
      output.flush();
    };
    connection.registerScalarFunction(
      DuckDBScalarFunction.create({
        name: hostFunctionName(name),
        returnType: TYPES[signature.returns],
        parameterTypes: signature.parameters.map((type) => TYPES[type]),
        specialHandling: takesNulls,
        mainFunction: (info, input, output) => {
          const started = performance.now();
          const held = heldPast(watch, HELD_LOOP_BOUND_MS, HELD_LOOP_BLOCKS);
          if (held !== undefined) {
            const message = heldLoopError(name, held).message;
            watch.bound ??= message;
            watch.failure ??= message;
            info.setError(message);
            return;
          }
          try {
            runBlock(info, input, output);
          } finally {
            blockRan(watch, performance.now() - started);
          }
        },
      }),
    );
  }
}
