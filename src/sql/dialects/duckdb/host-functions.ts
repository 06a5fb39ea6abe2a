/**
 * Functions the DuckDB backend adds to DuckDB, written in the host language and registered on every
 * instance it opens (backends/duckdb/host-functions/), for what DuckDB has no function for, or none
 * with BigQuery's answer: ICU's case mapping and normalization, SOUNDEX, base32, SHA-512, edit
 * distance by character, JSON values as BigQuery writes them, IP addresses... Each is declared
 * here with the DuckDB types it takes and returns; renderings call it by `hostCall`. NULL in any
 * argument gives NULL unless the function is marked `nulls`.
 */

export type HostType = 'VARCHAR' | 'BLOB' | 'BIGINT' | 'BOOLEAN' | 'DOUBLE' | 'VARCHAR[]' | 'BIGINT[]';

export interface HostFunctionSignature {
  readonly parameters: readonly HostType[];
  readonly returns: HostType;
  /** Called with NULL arguments too (it decides what NULL gives). */
  readonly nulls?: boolean;
}

export const HOST_FUNCTIONS = {
  lower: { parameters: ['VARCHAR'], returns: 'VARCHAR' },
  upper: { parameters: ['VARCHAR'], returns: 'VARCHAR' },
  initcap: { parameters: ['VARCHAR', 'VARCHAR'], returns: 'VARCHAR' },
  initcap_default: { parameters: ['VARCHAR'], returns: 'VARCHAR' },
  normalize: { parameters: ['VARCHAR', 'VARCHAR', 'BOOLEAN'], returns: 'VARCHAR' },
  soundex: { parameters: ['VARCHAR'], returns: 'VARCHAR' },
  translate: { parameters: ['VARCHAR', 'VARCHAR', 'VARCHAR'], returns: 'VARCHAR' },
  instr: { parameters: ['VARCHAR', 'VARCHAR', 'BIGINT', 'BIGINT'], returns: 'BIGINT' },
  instr_bytes: { parameters: ['BLOB', 'BLOB', 'BIGINT', 'BIGINT'], returns: 'BIGINT' },
  edit_distance: { parameters: ['VARCHAR', 'VARCHAR'], returns: 'BIGINT' },
  edit_distance_bytes: { parameters: ['BLOB', 'BLOB'], returns: 'BIGINT' },
  regexp_instr: { parameters: ['VARCHAR', 'VARCHAR', 'BIGINT', 'BIGINT', 'BIGINT'], returns: 'BIGINT' },
  safe_convert_bytes: { parameters: ['BLOB'], returns: 'VARCHAR' },
  to_base32: { parameters: ['BLOB'], returns: 'VARCHAR' },
  from_base32: { parameters: ['VARCHAR'], returns: 'BLOB' },
  sha512: { parameters: ['BLOB'], returns: 'BLOB' },
  farm_fingerprint: { parameters: ['BLOB'], returns: 'BIGINT' },
  format: { parameters: ['VARCHAR', 'VARCHAR[]', 'VARCHAR[]'], returns: 'VARCHAR' },
  contains_substr: { parameters: ['VARCHAR[]', 'VARCHAR[]', 'VARCHAR', 'VARCHAR'], returns: 'BOOLEAN' },
  json_parse: { parameters: ['VARCHAR', 'VARCHAR'], returns: 'VARCHAR' },
  to_json: { parameters: ['VARCHAR[]', 'VARCHAR[]', 'BOOLEAN'], returns: 'VARCHAR' },
  json_query: { parameters: ['VARCHAR', 'VARCHAR'], returns: 'VARCHAR' },
  json_value: { parameters: ['VARCHAR', 'VARCHAR'], returns: 'VARCHAR' },
  json_query_array: { parameters: ['VARCHAR', 'VARCHAR', 'BOOLEAN'], returns: 'VARCHAR[]' },
  json_value_array: { parameters: ['VARCHAR', 'VARCHAR', 'BOOLEAN'], returns: 'VARCHAR[]' },
  json_type: { parameters: ['VARCHAR'], returns: 'VARCHAR' },
  json_bool: { parameters: ['VARCHAR'], returns: 'BOOLEAN' },
  json_int64: { parameters: ['VARCHAR'], returns: 'BIGINT' },
  json_float64: { parameters: ['VARCHAR', 'VARCHAR'], returns: 'DOUBLE' },
  json_string: { parameters: ['VARCHAR'], returns: 'VARCHAR' },
  lax_bool: { parameters: ['VARCHAR'], returns: 'BOOLEAN' },
  lax_int64: { parameters: ['VARCHAR'], returns: 'BIGINT' },
  lax_float64: { parameters: ['VARCHAR'], returns: 'DOUBLE' },
  lax_string: { parameters: ['VARCHAR'], returns: 'VARCHAR' },
  json_array: { parameters: ['VARCHAR[]', 'VARCHAR[]'], returns: 'VARCHAR' },
  json_object: { parameters: ['VARCHAR[]', 'VARCHAR[]', 'VARCHAR[]'], returns: 'VARCHAR' },
  json_set: { parameters: ['VARCHAR', 'VARCHAR[]', 'VARCHAR[]', 'VARCHAR[]', 'BOOLEAN'], returns: 'VARCHAR' },
  json_remove: { parameters: ['VARCHAR', 'VARCHAR[]'], returns: 'VARCHAR' },
  json_array_add: { parameters: ['VARCHAR', 'VARCHAR[]', 'VARCHAR[]', 'VARCHAR[]', 'BOOLEAN', 'BOOLEAN'], returns: 'VARCHAR' },
  json_strip_nulls: { parameters: ['VARCHAR', 'VARCHAR', 'BOOLEAN', 'BOOLEAN'], returns: 'VARCHAR' },
  json_keys: { parameters: ['VARCHAR', 'BIGINT', 'VARCHAR'], returns: 'VARCHAR[]', nulls: true },
  json_flatten: { parameters: ['VARCHAR'], returns: 'VARCHAR[]' },
  ip_from_string: { parameters: ['VARCHAR', 'BOOLEAN'], returns: 'BLOB' },
  ip_to_string: { parameters: ['BLOB'], returns: 'VARCHAR' },
  ipv4_from_int64: { parameters: ['BIGINT'], returns: 'BLOB' },
  ipv4_to_int64: { parameters: ['BLOB'], returns: 'BIGINT' },
  ip_net_mask: { parameters: ['BIGINT', 'BIGINT'], returns: 'BLOB' },
  ip_trunc: { parameters: ['BLOB', 'BIGINT'], returns: 'BLOB' },
  parse_numeric: { parameters: ['VARCHAR'], returns: 'VARCHAR' },
  cast_format_decimal: { parameters: ['VARCHAR', 'VARCHAR'], returns: 'VARCHAR' },
  cast_format_float: { parameters: ['VARCHAR', 'DOUBLE'], returns: 'VARCHAR' },
  parse_bignumeric: { parameters: ['VARCHAR'], returns: 'VARCHAR' },
  bignumeric_multiply: { parameters: ['VARCHAR', 'VARCHAR'], returns: 'VARCHAR' },
  bignumeric_divide: { parameters: ['VARCHAR', 'VARCHAR'], returns: 'VARCHAR' },
  bignumeric_div: { parameters: ['VARCHAR', 'VARCHAR'], returns: 'VARCHAR' },
  bignumeric_mod: { parameters: ['VARCHAR', 'VARCHAR'], returns: 'VARCHAR' },
  bignumeric_round: { parameters: ['VARCHAR', 'BIGINT', 'VARCHAR'], returns: 'VARCHAR' },
  bignumeric_of_double: { parameters: ['DOUBLE'], returns: 'VARCHAR' },
} as const satisfies Record<string, HostFunctionSignature>;

export type HostFunctionName = keyof typeof HOST_FUNCTIONS;

/**
 * The BigQuery function a caller wrote where a host function's name is not simply its own in upper
 * case, so an error DuckDB raises about the call names what the caller wrote
 * (backends/duckdb/caller-terms.ts). Where several render to one host function, each is named.
 */
const CALLED_AS: Partial<Record<HostFunctionName, string>> = {
  initcap_default: 'INITCAP',
  normalize: 'NORMALIZE (or NORMALIZE_AND_CASEFOLD)',
  instr_bytes: 'INSTR',
  edit_distance_bytes: 'EDIT_DISTANCE',
  safe_convert_bytes: 'SAFE_CONVERT_BYTES_TO_STRING',
  json_parse: 'PARSE_JSON',
  json_query: 'JSON_QUERY (or JSON_EXTRACT)',
  json_value: 'JSON_VALUE (or JSON_EXTRACT_SCALAR)',
  json_query_array: 'JSON_QUERY_ARRAY (or JSON_EXTRACT_ARRAY)',
  json_value_array: 'JSON_VALUE_ARRAY (or JSON_EXTRACT_STRING_ARRAY)',
  json_bool: 'BOOL',
  json_int64: 'INT64',
  json_float64: 'FLOAT64',
  json_string: 'STRING',
  json_array_add: 'JSON_ARRAY_APPEND (or JSON_ARRAY_INSERT)',
  ip_from_string: 'NET.IP_FROM_STRING (or NET.SAFE_IP_FROM_STRING)',
  ip_to_string: 'NET.IP_TO_STRING',
  ipv4_from_int64: 'NET.IPV4_FROM_INT64',
  ipv4_to_int64: 'NET.IPV4_TO_INT64',
  ip_net_mask: 'NET.IP_NET_MASK',
  ip_trunc: 'NET.IP_TRUNC',
  cast_format_decimal: 'CAST',
  cast_format_float: 'CAST',
  bignumeric_multiply: 'the operator * of BIGNUMERIC',
  bignumeric_divide: 'the operator / of BIGNUMERIC (or AVG)',
  bignumeric_div: 'DIV',
  bignumeric_mod: 'MOD',
  bignumeric_round: 'ROUND (or TRUNC, CEIL, FLOOR)',
  bignumeric_of_double: 'CAST',
};

/** The BigQuery function(s) a host function renders, as a caller wrote them. */
export function calledAs(name: HostFunctionName): string {
  return CALLED_AS[name] ?? name.toUpperCase();
}

/** What every host function's SQL name starts with, so no DuckDB function or macro is shadowed. */
export const HOST_FUNCTION_PREFIX = 'cannery_';

export function hostFunctionName(name: HostFunctionName): string {
  return `${HOST_FUNCTION_PREFIX}${name}`;
}

/**
 * Values of any type for a host function that reads them (FORMAT, TO_JSON): each as DuckDB writes
 * it in JSON and the name of its type, two lists (backends/duckdb/host-functions/sql-values.ts).
 */
export function hostValues(values: readonly string[]): [string, string] {
  if (values.length === 0) return ['CAST([] AS VARCHAR[])', 'CAST([] AS VARCHAR[])'];
  return [`[${values.map((value) => `CAST(to_json(${value}) AS VARCHAR)`).join(', ')}]`, `[${values.map((value) => `typeof(${value})`).join(', ')}]`];
}

/** A call of a host function. */
export function hostCall(name: HostFunctionName, ...args: string[]): string {
  return `${hostFunctionName(name)}(${args.join(', ')})`;
}
