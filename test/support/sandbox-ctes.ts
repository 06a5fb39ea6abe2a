/**
 * The compiled text of the endpoint CTEs a sandbox query keeps (those it reads, and those they
 * read), as it leads that query's compiled text: what tests strip to compare the caller's part.
 */
import type { CompiledEndpoint } from '../../src/engine/compiled-endpoint.js';
import { compileSandboxQuery, type SandboxOptions } from '../../src/engine/serve/sandbox-compile.js';
import type { Dialect } from '../../src/sql/generator/dialect.js';
import { composeSandboxQuery } from '../../src/sql/sandbox/rules.js';

/** The names of the endpoint's CTEs `sql` keeps, in the endpoint's order. */
export function endpointCtesRead(endpoint: Pick<CompiledEndpoint, 'definition' | 'statement'>, sql: string): string[] {
  const names = new Set(endpoint.statement.with.map((cte) => cte.name));
  return composeSandboxQuery(sql, { statement: endpoint.statement, declaredParams: Object.keys(endpoint.definition.params) })
    .with.map((cte) => cte.name)
    .filter((name) => names.has(name));
}

/** The text of the CTEs named, as a sandbox query reading exactly them starts (empty for none). */
export function endpointCtesText(endpoint: Pick<CompiledEndpoint, 'definition' | 'statement'>, names: readonly string[], dialect: Dialect, options: SandboxOptions = {}): string {
  const probe = compileSandboxQuery(endpoint, `select 1 as one${names.length ? ` from ${names.join(', ')}` : ''}`, dialect, options).sql;
  return probe.slice(0, probe.lastIndexOf(' SELECT 1 AS `one`'));
}
