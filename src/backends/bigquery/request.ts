/**
 * What a BigQuery query request takes from cannery's request: the parameters, each bound
 * with the BigQuery type of its spec (an absent one as a typed NULL), and the job labels.
 * Callers' values travel only here, never in the SQL text.
 */
import type { BoundParams, ParamSpec, ParamType } from '../../core/types.js';

export interface QueryParameter {
  name: string;
  parameterType: { type: string };
  parameterValue: { value: string | null };
}

const PARAMETER_TYPES: Record<ParamType, string> = {
  string: 'STRING',
  integer: 'INT64',
  number: 'FLOAT64',
  boolean: 'BOOL',
};

/** The named parameters the SQL binds; BigQuery takes every scalar value as a string. */
export function queryParameters(
  names: readonly string[],
  specs: Readonly<Record<string, ParamSpec>>,
  values: BoundParams,
): QueryParameter[] {
  return names.map((name) => {
    const spec = specs[name];
    if (!spec) throw new Error(`the SQL binds @${name}, which has no parameter spec`);
    const value = values[name] ?? null;
    return { name, parameterType: { type: PARAMETER_TYPES[spec.type] }, parameterValue: { value: value === null ? null : String(value) } };
  });
}

/** Labels on every job, so BigQuery's job history and billing show which endpoint ran it. */
export function jobLabels(endpointName: string): Record<string, string> {
  // Label values: lowercase letters, digits, _ and -, at most 63 characters.
  return { cannery_endpoint: endpointName.toLowerCase().replace(/[^a-z0-9_-]/g, '_').slice(0, 63) };
}
