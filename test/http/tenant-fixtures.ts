/**
 * Log rows of several projects in all nine sources, each row's id naming its project, so a test
 * can tell from any answer whose rows it holds. The project sits where each source keeps it (the
 * table in DESIGN.md): top-level `project`, or metadata's `project_ref` or `project`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SHIPPED_ENDPOINTS, type Fixtures } from '../support/service.js';

export const PROJECTS = ['abc', 'xyz', 'other'] as const;

/** The clock the tests serve at: every row is within usage.api-counts' last hour. */
export const NOW = new Date('2024-05-01T12:00:00Z');

/** Each source and where its rows hold the project. */
export const SOURCES: readonly { table: string; cte: string; at: 'top' | 'project_ref' | 'metadata.project' }[] = [
  { table: 'cloudflare.logs.prod', cte: 'edge_logs', at: 'top' },
  { table: 'postgres.logs', cte: 'postgres_logs', at: 'top' },
  { table: 'deno-relay-logs', cte: 'function_edge_logs', at: 'project_ref' },
  { table: 'deno-subhosting-events', cte: 'function_logs', at: 'project_ref' },
  { table: 'gotrue.logs.prod', cte: 'auth_logs', at: 'top' },
  { table: 'realtime.logs.prod', cte: 'realtime_logs', at: 'metadata.project' },
  { table: 'storage.logs.prod.2', cte: 'storage_logs', at: 'metadata.project' },
  { table: 'postgREST.logs.prod', cte: 'postgrest_logs', at: 'top' },
  { table: 'pgbouncer.logs.prod', cte: 'pgbouncer_logs', at: 'top' },
];

/** Rows per project and source: different, so a count tells projects apart. */
export function rowsOf(project: string): number {
  return PROJECTS.indexOf(project as (typeof PROJECTS)[number]) + 2;
}

/** The project a row id names (`abc-edge_logs-1` -> `abc`). */
export function projectOfId(id: string): string {
  return id.slice(0, id.indexOf('-'));
}

export function tenantFixtures(): Fixtures {
  const fixtures: Fixtures = {};
  for (const source of SOURCES) {
    fixtures[source.table] = PROJECTS.flatMap((project) =>
      Array.from({ length: rowsOf(project) }, (_, index) => {
        const id = `${project}-${source.cte}-${index}`;
        const timestamp = new Date(NOW.getTime() - (index + 1) * 60_000 - PROJECTS.indexOf(project) * 1000).toISOString();
        const request = { method: 'GET', path: '/rest/v1/items', url: `https://${project}.cannery.dev/rest/v1/items` };
        const metadata =
          source.at === 'project_ref' ? { project_ref: project } : source.at === 'metadata.project' ? { project } : { request };
        return { id, timestamp, event_message: `${source.cte} ${id}`, ...(source.at === 'top' ? { project } : {}), metadata };
      }),
    );
  }
  return fixtures;
}

/** logs.all's UUID, fixed forever (endpoints/logs.all.yaml). */
export const LOGS_ALL_ID = 'b699a50c-0586-48fa-95e6-6041369c6c05';

/** An endpoint without a `project` parameter: outside every scope that fixes one. */
const PLAIN = `id: 0d6f0b53-2a4e-4c4b-9d59-5a3e8f1f4c11
name: plain.one
description: One row, no parameters.
language: bq_sql
max_rows: 10
cache: false
sandbox: false
redact_pii: false
params: {}
query: select 1 as one
`;

/** The shipped endpoints (logs.all, usage.api-counts) and plain.one, by file name. */
export async function tenantEndpoints(): Promise<Record<string, string>> {
  const shipped = await Promise.all(['logs.all.yaml', 'usage.api-counts.yaml'].map(async (name) => [name, await readFile(join(SHIPPED_ENDPOINTS, name), 'utf8')] as const));
  return { ...Object.fromEntries(shipped), 'plain.one.yaml': PLAIN };
}
