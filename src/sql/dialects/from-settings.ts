/** The dialect its settings describe (generator/dialect.ts `DialectSettings`): equal settings, equal SQL. */
import type { Dialect, DialectSettings } from '../generator/dialect.js';
import { columnsLookup } from '../analyse/shape-data.js';
import { bigQueryDialect } from './bigquery/dialect.js';
import { duckDbDialect } from './duckdb/dialect.js';

export function dialectFromSettings(settings: DialectSettings): Dialect {
  if (settings.name === 'bigquery') return bigQueryDialect(new Map(settings.tables));
  return duckDbDialect(settings.sources, { sourceColumns: columnsLookup(settings.columns), strictNames: settings.strictNames });
}
