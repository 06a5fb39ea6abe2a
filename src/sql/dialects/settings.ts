/**
 * A dialect's settings: everything its SQL depends on besides cannery's own code, as plain JSON
 * data. The compile cache keys on them (a changed table mapping or table column compiles anew),
 * and worker threads, which cannot be handed functions, rebuild the dialect from them.
 */
import type { Dialect } from '../generator/dialect.js';
import { bigQueryDialect } from './bigquery.js';
import type { TablePath } from './bigquery-tables.js';
import { duckDbDialect } from './duckdb.js';
import { columnsLookup, type ShapeData } from './shape-data.js';

export interface DuckDbSettings {
  name: 'duckdb';
  sources: string[];
  /** The columns of each source whose columns are known, by source name. */
  columns: Record<string, [string, ShapeData][]>;
  strictNames: boolean;
}

export interface BigQuerySettings {
  name: 'bigquery';
  /** Source name -> table, in the map's order. */
  tables: [string, TablePath][];
}

export type DialectSettings = DuckDbSettings | BigQuerySettings;

/** The dialect its settings describe: equal settings, equal SQL. */
export function dialectFromSettings(settings: DialectSettings): Dialect {
  if (settings.name === 'bigquery') return bigQueryDialect(new Map(settings.tables));
  return duckDbDialect(settings.sources, { sourceColumns: columnsLookup(settings.columns), strictNames: settings.strictNames });
}
