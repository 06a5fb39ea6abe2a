/** Sandbox SQL -> executable SQL for the active backend, or a 400 saying what is not allowed. */
import type { CompiledSql, SqlDialect } from '../sql/dialect.js';
import { UnsupportedConstruct } from '../sql/duckdb/unsupported.js';
import { composeSandboxQuery, SandboxViolation } from '../sql/sandbox.js';
import { CanneryError } from '../core/errors.js';
import type { CompiledEndpoint } from '../core/types.js';

/** Longest sandbox SQL accepted, in characters: room for real queries, not for parser abuse. */
export const MAX_SANDBOX_SQL_LENGTH = 100_000;

export function compileSandboxQuery(endpoint: CompiledEndpoint, sql: string, dialect: SqlDialect): CompiledSql {
  const { definition } = endpoint;
  if (!definition.sandbox) {
    throw new CanneryError('sandbox_not_enabled', `${definition.name} does not accept sql: query sandboxing is not enabled for it`, { param: 'sql' });
  }
  if (sql.length > MAX_SANDBOX_SQL_LENGTH) {
    throw new CanneryError('sandbox_violation', `sql is ${sql.length} characters long; the limit is ${MAX_SANDBOX_SQL_LENGTH}`, { param: 'sql' });
  }
  try {
    const statement = composeSandboxQuery(sql, { statement: endpoint.statement, declaredParams: Object.keys(definition.params) });
    return dialect.compile(statement, { rowCap: definition.max_rows });
  } catch (error) {
    if (error instanceof SandboxViolation) throw new CanneryError('sandbox_violation', error.message, { param: 'sql' });
    if (error instanceof UnsupportedConstruct) {
      const where = error.location ? ` (line ${error.location.line}, column ${error.location.column})` : '';
      throw new CanneryError('sandbox_violation', `${error.message}${where}; the README lists the supported SQL`, { param: 'sql' });
    }
    throw error;
  }
}
