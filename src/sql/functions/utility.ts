/**
 * NET functions of IP addresses (host functions), PARSE_NUMERIC, and the utility functions:
 * ERROR (a query error with the message), GENERATE_UUID and TYPEOF.
 */
import { hostCall } from '../dialects/duckdb/host-functions.js';
import { quoteString } from '../dialects/duckdb/quote.js';
import { repeatable } from '../dialects/duckdb/semantics.js';
import { scalar, type CallContext, type FunctionSpec } from './call.js';

/** BigQuery's names of the types DuckDB holds its values in, for TYPEOF. */
const TYPE_NAMES: Readonly<Record<string, string>> = {
  BIGINT: 'INT64', INTEGER: 'INT64', SMALLINT: 'INT64', TINYINT: 'INT64', HUGEINT: 'INT64', '"NULL"': 'INT64',
  DOUBLE: 'FLOAT64', FLOAT: 'FLOAT64', 'DECIMAL(38,9)': 'NUMERIC', VARCHAR: 'STRING', BLOB: 'BYTES', BOOLEAN: 'BOOL',
  DATE: 'DATE', TIMESTAMP: 'DATETIME', 'TIMESTAMP WITH TIME ZONE': 'TIMESTAMP', TIME: 'TIME', INTERVAL: 'INTERVAL', JSON: 'JSON',
};

/** TYPEOF: the BigQuery type's name, from the query where it says it, else from DuckDB's (arrays and structs are refused when it runs). */
function typeOf(call: CallContext): string {
  const node = call.argNodes[0]!;
  if (node.kind === 'literal' && node.type === 'null') return `'INT64'`;
  const known = call.typeOf(node);
  if (known !== undefined) return quoteString(known === 'numeric' ? 'NUMERIC' : known.toUpperCase());
  const value = repeatable(call.args[0]!, call.refuse);
  const cases = Object.entries(TYPE_NAMES).map(([duck, name]) => `WHEN ${quoteString(duck)} THEN '${name}'`).join(' ');
  return `(CASE typeof(${value}) ${cases} ELSE CAST(('TYPEOF of a ' || typeof(${value}) || ' value is not supported on the embedded engine') AS BIGINT) END)`;
}

/** ERROR: the query fails with the message; typed NULL, so it stands wherever a value of any type does. */
function error(call: CallContext): string {
  return `(CASE WHEN CAST(('' || ${call.args[0]}) AS BIGINT) IS NULL THEN NULL END)`;
}

export const UTILITY_FUNCTIONS: ReadonlyMap<string, FunctionSpec> = new Map<string, FunctionSpec>([
  ['net.ip_from_string', scalar('the BYTES of an IPv4 or IPv6 address in text (an error for text that is none)', [1, 1], (call) => hostCall('ip_from_string', call.args[0]!, 'false'), { returns: 'bytes' })],
  ['net.safe_ip_from_string', scalar('as NET.IP_FROM_STRING, NULL for text that is no address', [1, 1], (call) => hostCall('ip_from_string', call.args[0]!, 'true'), { returns: 'bytes' })],
  ['net.ip_to_string', scalar('an IPv4 or IPv6 address in BYTES as text', [1, 1], (call) => hostCall('ip_to_string', call.args[0]!), { returns: 'string' })],
  ['net.ipv4_from_int64', scalar('the 4 BYTES of an IPv4 address held in an INT64', [1, 1], (call) => hostCall('ipv4_from_int64', call.args[0]!), { returns: 'bytes' })],
  ['net.ipv4_to_int64', scalar('the INT64 of an IPv4 address\'s 4 BYTES', [1, 1], (call) => hostCall('ipv4_to_int64', call.args[0]!), { returns: 'int64' })],
  ['net.ip_net_mask', scalar('a network mask of 4 or 16 BYTES with the first n bits set', [2, 2], (call) => hostCall('ip_net_mask', call.args[0]!, call.args[1]!), { returns: 'bytes' })],
  ['net.ip_trunc', scalar('an address in BYTES with the bits past the prefix length cleared', [2, 2], (call) => hostCall('ip_trunc', call.args[0]!, call.args[1]!), { returns: 'bytes' })],
  ['parse_numeric', scalar('the NUMERIC a string holds (commas, white space and a trailing sign allowed; rounded to 9 decimals)', [1, 1], (call) => `CAST(${hostCall('parse_numeric', call.args[0]!)} AS DECIMAL(38, 9))`, { returns: 'numeric' })],
  // Its units of 10^-38, a BIGNUM on DuckDB (dialects/duckdb/bignumeric.ts).
  ['parse_bignumeric', scalar('the BIGNUMERIC a string holds (commas, white space and a trailing sign allowed; rounded to 38 decimals)', [1, 1], (call) => `CAST(${hostCall('parse_bignumeric', call.args[0]!)} AS BIGNUM)`, { returns: 'bignumeric' })],
  ['error', scalar('raises an error with the message', [1, 1], error)],
  ['generate_uuid', scalar('a random version 4 UUID as lower-case text', [0, 0], () => 'CAST(uuid() AS VARCHAR)', { returns: 'string' })],
  ['typeof', scalar('the name of the argument\'s type', [1, 1], typeOf, { returns: 'string' })],
]);
