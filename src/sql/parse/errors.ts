/**
 * Errors at a place in the SQL text. One class carries the place; each kind is a subclass only so
 * that a stage can tell them apart with `instanceof` (a syntax error is reported at load, a
 * query that means nothing only when no backend can run it).
 */

export interface SqlLocation {
  /** 1-based line within the SQL text. */
  line: number;
  column: number;
}

export class LocatedSqlError extends Error {
  readonly location: SqlLocation | undefined;
  constructor(message: string, location: SqlLocation | undefined) {
    super(message);
    this.name = new.target.name;
    this.location = location;
  }
}

/** Text the grammar cannot read. */
export class SqlSyntaxError extends LocatedSqlError {}

/**
 * A query that means nothing (a name no relation has, a field a struct lacks): what BigQuery
 * refuses as `invalidQuery`, found before anything runs. The caller's mistake, not a construct a
 * backend lacks.
 */
export class InvalidQuery extends LocatedSqlError {}
