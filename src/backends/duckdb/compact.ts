/**
 * `cannery compact`: rewrites source tables in the current storage layout (docs/storage.md).
 *
 * A table is rewritten whole, in one transaction: every record whose values all hold exactly one
 * object becomes one STRUCT (the data decides, so a table of an older layout, where every record is
 * a list, is migrated), and the rows are written in time order, so each row group covers a short
 * span of time again after imports that arrived out of order. What was a list because some value
 * held several objects stays a list.
 */
import type { DuckDBConnection } from '#duckdb-api';
import { NOT_NULL_COLUMN } from '../../config/sources.js';
import { quoteIdentifier, quoteString } from '../../sql/dialects/duckdb/quote.js';
import { convertLayout } from './layout-sql.js';
import { CURRENT_LAYOUT, layoutComment } from './layout-version.js';
import { readSourceTable, requireTimes, type SourceTable } from './source-tables.js';
import { cloneShape, hasColumns, type RecordValueShape } from './value-shape.js';

export interface CompactOutcome {
  name: string;
  rows: number;
  layoutBefore: number;
  /** Dotted paths of the records stored as lists before, and after. */
  listsBefore: string[];
  listsAfter: string[];
}

/** A record of the target shape, the SQL of its value in the stored table, and whether that value is a list. */
interface Candidate {
  target: RecordValueShape;
  stored: RecordValueShape;
  sql: string;
  path: string;
}

function listPaths(record: RecordValueShape, path: string): string[] {
  const own = record.repeated ? [path] : [];
  const below = [...record.fields.values()].flatMap((entry) => (entry.shape.kind === 'record' && hasColumns(entry.shape) ? listPaths(entry.shape, `${path}.${entry.name}`) : []));
  return [...own, ...below];
}

/**
 * The table's records, each stored as one STRUCT where the rows allow: a record can be a STRUCT when
 * its parent is one and each of its values is NULL or a list of exactly one object. Decided level by
 * level, one scan of the table per level of nesting.
 */
async function structWherePossible(connection: DuckDBConnection, table: SourceTable, column: string): Promise<RecordValueShape> {
  const target = cloneShape(table.metadata);
  let level: Candidate[] = [{ target, stored: table.metadata, sql: quoteIdentifier(column), path: 'metadata' }];
  while (level.length > 0) {
    const lists = level.filter((candidate) => candidate.stored.repeated);
    if (lists.length > 0) {
      const checks = lists.map((candidate, index) => `count_if(NOT (${candidate.sql} IS NULL OR (len(${candidate.sql}) = 1 AND ${candidate.sql}[1] IS NOT NULL))) AS ${quoteIdentifier(`c${index}`)}`);
      const reader = await connection.runAndReadAll(`SELECT ${checks.join(', ')} FROM ${quoteIdentifier(table.name)}`);
      const [counts] = reader.getRowObjectsJS() as Record<string, bigint>[];
      lists.forEach((candidate, index) => {
        candidate.target.repeated = (counts?.[`c${index}`] ?? 0n) > 0n;
      });
    }
    const next: Candidate[] = [];
    for (const candidate of level) {
      // Everything under a list stays a list.
      if (candidate.target.repeated) continue;
      const element = candidate.stored.repeated ? `${candidate.sql}[1]` : candidate.sql;
      for (const [key, entry] of candidate.target.fields) {
        const stored = candidate.stored.fields.get(key)?.shape;
        if (entry.shape.kind !== 'record' || stored?.kind !== 'record' || !hasColumns(entry.shape)) continue;
        next.push({ target: entry.shape, stored, sql: `struct_extract(${element}, ${quoteString(entry.name)})`, path: `${candidate.path}.${entry.name}` });
      }
    }
    level = next;
  }
  return target;
}

export async function compactSourceTable(connection: DuckDBConnection, name: string): Promise<CompactOutcome | undefined> {
  const table = await readSourceTable(connection, name);
  if (table === undefined) return undefined;
  const metadataColumn = table.columns.get('metadata')?.name;
  const target = metadataColumn === undefined ? table.metadata : await structWherePossible(connection, table, metadataColumn);
  const staging = quoteIdentifier(`${table.name}.compacting`);
  const select = [...table.columns.values()].map((column) =>
    column.name === metadataColumn ? `${convertLayout(quoteIdentifier(column.name), table.metadata, target)} AS ${quoteIdentifier(column.name)}` : quoteIdentifier(column.name),
  );
  await connection.run('BEGIN TRANSACTION');
  try {
    await connection.run(`CREATE TABLE ${staging} AS SELECT ${select.join(', ')} FROM ${quoteIdentifier(table.name)} ORDER BY "timestamp"`);
    await connection.run(`DROP TABLE ${quoteIdentifier(table.name)}`);
    await connection.run(`ALTER TABLE ${staging} RENAME TO ${quoteIdentifier(table.name)}`);
    await connection.run(`COMMENT ON TABLE ${quoteIdentifier(table.name)} IS ${quoteString(layoutComment(CURRENT_LAYOUT))}`);
    // CREATE TABLE AS declares no constraint: the time is NOT NULL again (and now, on a table from before it was).
    const time = table.columns.get(NOT_NULL_COLUMN);
    if (time !== undefined) await requireTimes(connection, table.name, time.name);
    await connection.run('COMMIT');
  } catch (error) {
    await connection.run('ROLLBACK');
    throw error;
  }
  const reader = await connection.runAndReadAll(`SELECT count(*) AS n FROM ${quoteIdentifier(table.name)}`);
  const rows = Number((reader.getRowObjectsJS()[0] as { n: bigint }).n);
  return {
    name: table.name,
    rows,
    layoutBefore: table.layout,
    listsBefore: metadataColumn === undefined ? [] : listPaths(table.metadata, 'metadata'),
    listsAfter: metadataColumn === undefined ? [] : listPaths(target, 'metadata'),
  };
}
