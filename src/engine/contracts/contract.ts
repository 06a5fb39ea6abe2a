/**
 * Contracts: what callers of an endpoint rely on, its parameters and its result columns. The
 * columns are found by compiling the query for the scratch engine and describing it on empty
 * tables, so they follow from the SQL and the sources' declared fields, never from data.
 */
import { DEFAULTS } from '../../config/settings.js';
import { isCanneryError } from '../../core/errors.js';
import type { BoundValue, EndpointContract, EndpointDefinition, ParamSpec } from '../../core/types.js';
import { generate } from '../../sql/generator/generate.js';
import { UnsupportedConstruct } from '../../sql/generator/unsupported.js';
import type { ScratchBackend, ScratchEngine } from '../backend.js';
import type { CompiledEndpoint } from '../compiled-endpoint.js';

export type ContractOutcome = { contract: EndpointContract; problem?: undefined } | { contract?: undefined; problem: string };

/** Describing reads no row, but a query can still be slow to plan; this bounds it. */
const DESCRIBE_TIMEOUT_MS = 10_000;

export async function describeEndpoint(endpoint: CompiledEndpoint, backend: ScratchBackend): Promise<ContractOutcome> {
  const { definition } = endpoint;
  try {
    const compiled = generate(endpoint.statement, backend.dialect, { rowCap: definition.max_rows });
    const columns = await backend.describe({
      sql: compiled.sql,
      parameters: compiled.parameters,
      writeBack: compiled.writeBack,
      values: Object.fromEntries(Object.entries(definition.params).map(([name, spec]) => [name, sampleValue(spec)])),
      specs: definition.params,
      now: new Date(0),
      maxRows: definition.max_rows,
      // Describing reads no row: nothing to spend.
      maxBytes: DEFAULTS.maxResultBytes,
      timeoutMs: DESCRIBE_TIMEOUT_MS,
      endpointName: definition.name,
    });
    return { contract: { params: contractParams(definition), columns } };
  } catch (error) {
    if (isCanneryError(error) || error instanceof UnsupportedConstruct) return { problem: error.message };
    throw error;
  }
}

/**
 * A valid value of the parameter. A NULL would be bound untyped, leaving its type to DuckDB
 * (`select @name` would be an INT64 column); a value bound with the declared type is typed as
 * BigQuery types the parameter. Valid, so a query that casts or matches it cannot fail on it.
 */
function sampleValue(spec: ParamSpec): BoundValue {
  switch (spec.type) {
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'string':
      return spec.enum?.[0] ?? (spec.format === 'date-time' ? '1970-01-01T00:00:00.000000Z' : '');
  }
}

/** The parameters as a contract holds them: as declared, without their descriptions. */
export function contractParams(definition: EndpointDefinition): EndpointContract['params'] {
  return Object.fromEntries(Object.entries(definition.params).map(([name, { description: _prose, ...spec }]) => [name, spec]));
}

/** `off`, or `900 s, warmed every 300 s`. */
export function cacheText(cache: EndpointDefinition['cache']): string {
  if (cache === false) return 'off';
  return `${cache.ttl_seconds} s${cache.warm_every_seconds === undefined ? '' : `, warmed every ${cache.warm_every_seconds} s`}`;
}

export interface ContractBook {
  /** Each endpoint's contract, described once per definition version and remembered. */
  of(endpoints: readonly CompiledEndpoint[]): Promise<Map<CompiledEndpoint, ContractOutcome>>;
}

/**
 * Described lazily: serving never needs a contract, and describing costs a scratch database
 * (about 20 ms) plus a few ms per endpoint, which start-up should not pay for 500 files.
 */
export function createContractBook(engine: ScratchEngine): ContractBook {
  const byVersion = new Map<string, Promise<ContractOutcome>>();
  const describeAll = async (endpoints: CompiledEndpoint[]): Promise<ContractOutcome[]> => {
    const backend = await engine.open({});
    try {
      const outcomes: ContractOutcome[] = [];
      for (const endpoint of endpoints) outcomes.push(await describeEndpoint(endpoint, backend));
      return outcomes;
    } finally {
      await backend.close();
    }
  };
  return {
    async of(endpoints) {
      const wanted = new Set(endpoints.map((endpoint) => endpoint.version));
      // Versions no longer served (hot reload replaced them) are forgotten.
      for (const version of byVersion.keys()) if (!wanted.has(version)) byVersion.delete(version);
      const missing = [...new Map(endpoints.filter((endpoint) => !byVersion.has(endpoint.version)).map((endpoint) => [endpoint.version, endpoint])).values()];
      if (missing.length) {
        const batch = describeAll(missing);
        missing.forEach((endpoint, index) => {
          const outcome = batch.then((outcomes) => outcomes[index]!);
          byVersion.set(endpoint.version, outcome);
          // A failure to open the scratch database is not remembered: the next call tries again.
          outcome.catch(() => byVersion.delete(endpoint.version));
        });
      }
      const outcomes = await Promise.all(endpoints.map((endpoint) => byVersion.get(endpoint.version)!));
      return new Map(endpoints.map((endpoint, index) => [endpoint, outcomes[index]!]));
    },
  };
}
