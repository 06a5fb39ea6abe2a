import type { ErrorObject } from 'ajv/dist/2020.js';
import type { Problem } from '../core/types.js';
import { closestSpelling } from './spelling.js';
import type { DataPath, YamlSource } from './yaml-source.js';

/**
 * Turns ajv's errors into problems a person can act on: each at the line where the offending
 * field is written, naming the field as a dotted path, in words rather than schema keywords.
 */
export function schemaProblems(
  errors: readonly ErrorObject[],
  source: YamlSource,
  file: string,
  /** What the whole file must be, for a file that is not a mapping at all. */
  whole = 'a mapping of endpoint fields',
): Problem[] {
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const error of collapseAlternatives(errors)) {
    // A bad parameter name yields an error per failed rule plus this summary; the rules say more.
    if (error.keyword === 'propertyNames') continue;
    const { at, field, message } = explain(error, whole);
    const problem: Problem = { file, line: source.lineOf(at), message };
    if (field) problem.field = field;
    const identity = `${problem.line}\0${message}`;
    if (seen.has(identity)) continue;
    seen.add(identity);
    problems.push(problem);
  }
  return problems.sort((a, b) => a.line - b.line);
}

/**
 * ajv reports every branch of an anyOf that failed, which for `cache: {ttl: 5}` includes
 * "must be equal to false". Keep the errors of the one branch whose kind (type or const) the
 * value has; if no single branch fits, keep only the anyOf error, which gets one plain message.
 */
function collapseAlternatives(errors: readonly ErrorObject[]): ErrorObject[] {
  let result = [...errors];
  for (const alternative of errors) {
    if (alternative.keyword !== 'anyOf' && alternative.keyword !== 'oneOf') continue;
    const prefix = `${alternative.schemaPath}/`;
    const inside = result.filter((e) => e.schemaPath.startsWith(prefix));
    const branchOf = (e: ErrorObject): string => e.schemaPath.slice(prefix.length).split('/')[0] ?? '';
    const misfits = new Set(
      inside
        .filter((e) => e.instancePath === alternative.instancePath && (e.keyword === 'type' || e.keyword === 'const'))
        .filter((e) => e.schemaPath === `${prefix}${branchOf(e)}/${e.keyword}`)
        .map(branchOf),
    );
    const fitting = new Set(inside.map(branchOf).filter((branch) => !misfits.has(branch)));
    const keep = fitting.size === 1 ? inside.filter((e) => fitting.has(branchOf(e))) : [alternative];
    result = result.filter((e) => e !== alternative && !inside.includes(e)).concat(keep);
  }
  return result;
}

interface Explanation {
  /** Where the problem is reported: the line of this data path. */
  at: DataPath;
  field: string;
  message: string;
}

function explain(error: ErrorObject, whole: string): Explanation {
  const path = parsePointer(error.instancePath);
  const here = path.length === 0 ? 'the file' : dotted(path);
  const params = error.params as Record<string, unknown>;
  const schema = error.parentSchema ?? {};
  const custom = typeof schema.errorMessage === 'string' ? schema.errorMessage : undefined;
  const got = (message: string): string => withGot(message, error.data);

  if (error.propertyName !== undefined) {
    const at = [...path, error.propertyName];
    const rule = error.keyword === 'pattern' ? schema.patternErrorMessage : custom;
    const message = typeof rule === 'string' ? rule : `${dotted(at)} is not an allowed name`;
    return { at, field: dotted(at), message: withGot(message, error.propertyName) };
  }

  // In endpoint.schema.json a dependent schema only constrains the sibling `type` of the key that
  // triggered it (enum, format); the key is what the author should look at.
  const dependent = /\/dependentSchemas\/([^/]+)\//.exec(error.schemaPath)?.[1];
  if (dependent) {
    const at = [...path.slice(0, -1), dependent];
    const message = custom ?? `${dotted(at)} does not fit ${here}`;
    return { at, field: dotted(at), message: `${message}, not ${String(error.data)}` };
  }

  switch (error.keyword) {
    case 'required': {
      const field = dotted([...path, String(params.missingProperty)]);
      return { at: path, field, message: `missing required field "${field}"` };
    }
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const allowed = Object.keys((schema.properties as object | undefined) ?? {});
      const guess = closestSpelling(key, allowed);
      const hint = guess ? `did you mean "${guess}"? ` : '';
      const at = [...path, key];
      return { at, field: dotted(at), message: `unknown field "${dotted(at)}" (${hint}allowed: ${allowed.join(', ')})` };
    }
    case 'type': {
      const what = path.length === 0 ? whole : typeNames(params.type);
      return { at: path, field: dotted(path), message: got(`${here} must be ${what}`) };
    }
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map(String).join(', ');
      return { at: path, field: dotted(path), message: got(`${here} must be one of: ${allowed}`) };
    }
    case 'const':
      return { at: path, field: dotted(path), message: got(custom ?? `${here} must be ${JSON.stringify(params.allowedValue)}`) };
    case 'pattern': {
      const rule = typeof schema.patternErrorMessage === 'string' ? schema.patternErrorMessage : undefined;
      return { at: path, field: dotted(path), message: got(rule ?? `${here} must match ${String(params.pattern)}`) };
    }
    case 'minimum':
    case 'maximum': {
      const bound = error.keyword === 'minimum' ? 'at least' : 'at most';
      return { at: path, field: dotted(path), message: got(`${here} must be ${bound} ${String(params.limit)}`) };
    }
    case 'minLength':
      return { at: path, field: dotted(path), message: `${here} must not be empty` };
    case 'minItems': {
      const count = Number(params.limit) === 1 ? 'one value' : `${String(params.limit)} values`;
      return { at: path, field: dotted(path), message: `${here} must list at least ${count}` };
    }
    case 'uniqueItems': {
      const later = Math.max(Number(params.i), Number(params.j));
      const value = Array.isArray(error.data) ? error.data[later] : undefined;
      return { at: [...path, later], field: dotted(path), message: `${here} lists ${shown(value)} more than once` };
    }
    default:
      return { at: path, field: dotted(path), message: got(custom ?? `${here} ${error.message ?? 'is invalid'}`) };
  }
}

function parsePointer(pointer: string): DataPath {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^(0|[1-9][0-9]*)$/.test(segment) ? Number(segment) : segment));
}

function dotted(path: DataPath): string {
  return path.map((segment, i) => (typeof segment === 'number' ? `[${segment}]` : i === 0 ? segment : `.${segment}`)).join('');
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'a mapping',
  array: 'a list',
  null: 'empty',
};

function typeNames(type: unknown): string {
  const types = Array.isArray(type) ? type : String(type).split(',');
  return types.map((t: unknown) => TYPE_NAMES[String(t)] ?? String(t)).join(' or ');
}

/** A value as an author would recognise it in their YAML. */
function shown(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  return String(value);
}

function withGot(message: string, value: unknown): string {
  const text = shown(value);
  // A custom message may already quote the offending string, as in `parameter name "sql" is reserved`.
  return typeof value === 'string' && message.includes(text) ? message : `${message} (got ${text})`;
}
