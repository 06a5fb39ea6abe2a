import type { SqlLocation } from './parse.js';

/**
 * A query that means nothing (a name no relation has, a field a struct lacks): what BigQuery
 * refuses as `invalidQuery`, found before anything runs. The caller's mistake, not a construct a
 * backend lacks.
 */
export class InvalidQuery extends Error {
  readonly location: SqlLocation | undefined;
  constructor(message: string, location: SqlLocation | undefined) {
    super(message);
    this.name = 'InvalidQuery';
    this.location = location;
  }
}
