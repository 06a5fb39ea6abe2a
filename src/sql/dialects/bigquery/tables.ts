/**
 * Where each logical source lives in BigQuery. By default `<project>.<dataset>.<name>` with
 * every character outside [A-Za-z0-9_] replaced by `_` (`cloudflare.logs.prod` ->
 * `cloudflare_logs_prod`); a per-source override names any other table.
 */

import type { TablePath } from '../../generator/dialect.js';

/** The table name a source gets when it has no override. */
export function defaultTableName(source: string): string {
  return source.replace(/[^A-Za-z0-9_]/g, '_');
}

/** Source name -> table, for every source; `overrides` win over the default naming. */
export function sourceTables(
  sources: readonly string[],
  defaults: { project: string; dataset: string },
  overrides: Readonly<Record<string, TablePath>> = {},
): ReadonlyMap<string, TablePath> {
  return new Map(
    sources.map((source) => [source, overrides[source] ?? { ...defaults, table: defaultTableName(source) }]),
  );
}

/** The path as BigQuery SQL: one backtick-quoted `project.dataset.table` (names are validated to hold no backtick). */
export function tablePathSql(path: TablePath): string {
  return '`' + tablePathText(path) + '`';
}

export function tablePathText(path: TablePath): string {
  return `${path.project}.${path.dataset}.${path.table}`;
}

/** The ways BigQuery writes a table in its messages (`project:dataset.table` in most). */
export function tablePathSpellings(path: TablePath): string[] {
  return [`${path.project}:${path.dataset}.${path.table}`, tablePathText(path), `${path.dataset}.${path.table}`];
}
