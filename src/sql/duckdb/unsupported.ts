import type { SqlLocation } from '../parse.js';

/** A construct the BigQuery -> DuckDB translator does not support; `cannery check` reports it at load. */
export class UnsupportedConstruct extends Error {
  readonly location: SqlLocation | undefined;
  constructor(construct: string, location: SqlLocation | undefined) {
    super(`unsupported SQL: ${construct}`);
    this.name = 'UnsupportedConstruct';
    this.location = location;
  }
}
