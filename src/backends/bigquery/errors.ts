/**
 * BigQuery failures -> CanneryError. A rejection of a caller's value is invalid_parameter
 * naming the parameter; a job that timed out is query_timeout; anything else is query_failed,
 * marked as a rejected query when BigQuery refused the query itself (HTTP 400).
 * Messages name sources, never the tables they map to, and carry no job ids, project
 * numbers, principals, API URLs or positions in the compiled SQL (which no caller has seen).
 */
import { dirname } from 'node:path';
import { CanneryError } from '../../core/errors.js';
import { withoutServerPaths } from '../../core/server-paths.js';
import type { BoundParams, ParamSpec } from '../../core/types.js';

export interface ErrorContext {
  endpointName: string;
  /** The bound parameters: the ones whose values BigQuery may have rejected. */
  parameters: readonly string[];
  values: BoundParams;
  specs: Readonly<Record<string, ParamSpec>>;
  /** How BigQuery may spell each mapped table, with the source it stands for. */
  tableNames: readonly (readonly [spelling: string, source: string])[];
}

/** The shape of the client's ApiError (HTTP status, BigQuery's ErrorProto list) and of network errors. */
interface ClientError {
  code?: unknown;
  errors?: { reason?: unknown; message?: unknown }[];
  message?: unknown;
}

/**
 * BigQuery's messages for a value it could not use, with the offending text captured.
 * `regex`: RE2's message is "<what>: <fragment of the pattern>".
 */
const VALUE_ERRORS: { pattern: RegExp; kind: 'regex' | 'value' }[] = [
  { pattern: /^Cannot parse regular expression: (.*)$/s, kind: 'regex' },
  { pattern: /^Invalid (?:timestamp|datetime|date|time)(?: string)?:? ['"]?(.*?)['"]?$/is, kind: 'value' },
  { pattern: /^Failed to parse input (?:string|timestamp) ['"]?(.*?)['"]?$/is, kind: 'value' },
  { pattern: /^Bad (?:int64|double|bool|numeric|bignumeric) value: (.*)$/is, kind: 'value' },
];

export function bigQueryError(error: unknown, context: ErrorContext): CanneryError {
  const { code, errors, message } = (typeof error === 'object' && error !== null ? error : {}) as ClientError;
  const first = Array.isArray(errors) ? errors[0] : undefined;
  const reason = typeof first?.reason === 'string' ? first.reason : '';
  const raw = String(first?.message ?? message ?? error);
  const text = sanitize(raw, context.tableNames);
  const prefix = `${context.endpointName}:`;

  if (reason === 'timeout' || (reason === 'stopped' && /timed? ?out/i.test(text))) {
    return new CanneryError('query_timeout', `${prefix} BigQuery stopped the query at its time limit: ${text}`);
  }
  if (code === 401 || /default credentials/i.test(text)) {
    return new CanneryError('query_failed', `${prefix} BigQuery did not accept cannery's credentials (see docs/bigquery.md): ${text}`);
  }
  if (typeof code !== 'number') return new CanneryError('query_failed', `${prefix} the request to BigQuery failed: ${text}`);
  // Matched on BigQuery's own words: the value it quotes is the caller's, as sent.
  const blamed = code === 400 ? blamedParameter(raw, context) : undefined;
  if (blamed !== undefined) {
    return new CanneryError('invalid_parameter', `parameter "${blamed}" was rejected by BigQuery: ${text}`, { param: blamed });
  }
  // BigQuery answers 400 for a query it refuses as written (invalidQuery, a bad cast of a row,
  // resourcesExceeded): for a caller's sandbox query that is the caller's to fix (service.ts).
  return new CanneryError('query_failed', `${prefix} BigQuery could not run the query${reason ? ` (${reason})` : ''}: ${text}`, { queryRejected: code === 400 });
}

/**
 * The parameter whose value BigQuery's message quotes. BigQuery names the value, not the
 * parameter, so the value is matched against the request's; a message that matches none
 * (say a bad value in the data) is not the caller's fault.
 */
function blamedParameter(message: string, context: ErrorContext): string | undefined {
  for (const { pattern, kind } of VALUE_ERRORS) {
    const offending = pattern.exec(message)?.[1];
    if (offending === undefined) continue;
    const given = context.parameters.filter((name) => context.values[name] !== null && context.values[name] !== undefined);
    if (kind === 'value') return given.find((name) => String(context.values[name]) === offending);
    const separator = offending.indexOf(': ');
    if (separator >= 0) {
      const fragment = offending.slice(separator + 2);
      return given.find((name) => String(context.values[name]).includes(fragment));
    }
    // RE2 gave no fragment ("trailing \"): blame the one regular-expression parameter, if there is one.
    const patterns = given.filter((name) => context.specs[name]?.format === 'regex');
    return patterns.length === 1 ? patterns[0] : undefined;
  }
  return undefined;
}

/** Table spellings -> source names; internal identifiers, positions and the server's paths (a credentials file's) out. */
function sanitize(message: string, tableNames: ErrorContext['tableNames']): string {
  const credentials = process.env.GOOGLE_APPLICATION_CREDENTIALS;
  let text = withoutServerPaths(message, credentials ? [dirname(credentials)] : []);
  for (const [spelling, source] of tableNames) text = text.split(spelling).join(source);
  return text
    .replace(/https?:\/\/\S*\/bigquery\/v2\/\S*/g, 'the BigQuery API')
    .replace(/(?<![\w.:-])(?:[\w.-]+:)?(?:[\w-]+\.)?job_[\w-]+/g, 'a job')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, 'an id')
    .replace(/\b(projects?[\s/:]+)\d{5,}\b/gi, '$1(number)')
    .replace(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, 'a principal')
    .replace(/\s*at \[\d+:\d+\]/g, '')
    .trim();
}
