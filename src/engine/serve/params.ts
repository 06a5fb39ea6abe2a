/**
 * Request parameters -> bound values, validated against the endpoint's spec before any
 * query runs. Values are only ever bound, never spliced into SQL.
 */
import { RE2JS } from 're2js';
import { didYouMean } from '../../config/spelling.js';
import { CanneryError } from '../../core/errors.js';
import type { BoundParams, BoundValue, EndpointDefinition, ParamSpec } from '../../core/types.js';
import { MAX_FRACTION_DIGITS, normaliseTimestamp } from './timestamp.js';

/** The query-string name reserved for sandbox SQL. */
export const SANDBOX_PARAM = 'sql';

export interface RequestParams {
  /** Declared parameters, validated; absent optional ones are null. */
  values: BoundParams;
  /** Sandbox SQL, if the caller sent any. */
  sql: string | undefined;
}

/**
 * Reads `entries` (query-string pairs in order, or a JSON body's properties) for `definition`.
 * A name given twice, an undeclared name, a missing required value or a malformed value is a 400.
 */
export function readRequestParams(definition: EndpointDefinition, entries: Iterable<[string, string]>): RequestParams {
  const given = new Map<string, string>();
  for (const [name, value] of entries) {
    if (given.has(name)) {
      throw new CanneryError('invalid_parameter', `parameter "${name}" was given more than once; give it once`, { param: name });
    }
    given.set(name, value);
  }
  const declared = Object.keys(definition.params);
  for (const name of given.keys()) {
    // hasOwn, not `in`: a caller's `constructor` or `__proto__` must not match Object.prototype.
    if (name === SANDBOX_PARAM || Object.hasOwn(definition.params, name)) continue;
    const accepted = declared.length ? declared.join(', ') : 'none';
    throw new CanneryError(
      'unknown_parameter',
      `unknown parameter "${name}"${didYouMean(name, declared)}; ${definition.name} accepts: ${accepted}`,
      { param: name },
    );
  }
  const values: BoundParams = {};
  for (const [name, spec] of Object.entries(definition.params)) {
    values[name] = readParamValue(name, spec, given.get(name));
  }
  const sql = given.get(SANDBOX_PARAM);
  return { values, sql: sql === '' ? undefined : sql };
}

/** One parameter's value, or the 400 its spec gives it; the console checks each field with it as it is typed. */
export function readParamValue(name: string, spec: ParamSpec, raw: string | undefined): BoundValue {
  // An empty value means "absent" (spec part 4.2: an empty bound is no bound).
  if (raw === undefined || raw === '') {
    if (spec.required) throw new CanneryError('missing_parameter', `missing required parameter "${name}"${expected(spec)}`, { param: name });
    return null;
  }
  const invalid = (why: string) => new CanneryError('invalid_parameter', `parameter "${name}" ${why}`, { param: name });
  switch (spec.type) {
    case 'integer': {
      if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw invalid('must be a whole number');
      return Number(raw);
    }
    case 'number': {
      const value = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(value)) throw invalid('must be a number');
      return value;
    }
    case 'boolean': {
      if (raw !== 'true' && raw !== 'false') throw invalid('must be true or false');
      return raw === 'true';
    }
    case 'string':
      return readString(raw, spec, invalid);
  }
}

function readString(raw: string, spec: ParamSpec, invalid: (why: string) => CanneryError): string {
  if (spec.enum && !spec.enum.includes(raw)) throw invalid(`must be one of: ${spec.enum.join(', ')} (got "${raw}")`);
  if (spec.format === 'date-time') {
    const normalised = normaliseTimestamp(raw);
    if (normalised === undefined) {
      throw invalid(
        `must be an ISO 8601 timestamp with Z or an offset and at most ${MAX_FRACTION_DIGITS} fraction digits (microseconds, as BigQuery), e.g. 2024-05-01T12:00:00Z or 2024-05-01T14:00:00.123456+02:00 (got "${raw}")`,
      );
    }
    return normalised;
  }
  if (spec.format === 'regex' && !acceptedPatterns.has(raw)) {
    try {
      RE2JS.compile(raw);
    } catch (error) {
      throw invalid(`must be a valid RE2 regular expression: ${(error as Error).message}`);
    }
    // Newer RE2 (and re2js) accept (?<name>...); the RE2 inside DuckDB does not, so the query would fail later.
    if (hasAngleNamedGroup(raw)) throw invalid('must write named groups as (?P<name>...), which every RE2 accepts');
    if (acceptedPatterns.size >= ACCEPTED_PATTERNS_MAX) acceptedPatterns.clear();
    acceptedPatterns.add(raw);
  }
  return raw;
}

/**
 * Patterns already checked. Compiling one costs more than answering a cached request, and
 * callers repeat their patterns; bounded because callers choose them.
 */
const acceptedPatterns = new Set<string>();
const ACCEPTED_PATTERNS_MAX = 1000;

/** Whether the pattern opens a group with `(?<`, outside escapes and character classes. */
function hasAngleNamedGroup(pattern: string): boolean {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') i++;
    else if (inClass) inClass = char !== ']';
    else if (char === '[') inClass = true;
    else if (pattern.startsWith('(?<', i)) return true;
  }
  return false;
}

function expected(spec: ParamSpec): string {
  if (spec.enum) return ` (one of: ${spec.enum.join(', ')})`;
  if (spec.format === 'date-time') return ' (an ISO 8601 timestamp)';
  if (spec.format === 'regex') return ' (an RE2 regular expression)';
  return ` (${spec.type})`;
}
