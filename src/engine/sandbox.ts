/** Sandbox SQL -> executable SQL for the active backend, or a 400 saying what is not allowed. */
import { CanneryError } from '../core/errors.js';
import type { CompiledSql, Dialect } from '../sql/generator/dialect.js';
import { generate } from '../sql/generator/generate.js';
import { UnsupportedConstruct } from '../sql/generator/unsupported.js';
import { InvalidQuery } from '../sql/invalid-query.js';
import type { SqlLocation } from '../sql/parse.js';
import { composeSandboxQuery, SandboxViolation } from '../sql/sandbox.js';
import type { EndpointDefinition } from '../core/types.js';
import type { CompiledEndpoint } from './compiled-endpoint.js';

/** Longest sandbox SQL accepted, in characters: room for real queries, not for parser abuse. */
export const MAX_SANDBOX_SQL_LENGTH = 100_000;

/** The refusals that need no parsing: sandbox off, an endpoint that is always redacted, SQL over the length cap. */
export function checkSandboxRequest(definition: EndpointDefinition, sql: string): void {
  if (!definition.sandbox) {
    throw new CanneryError('sandbox_not_enabled', `${definition.name} does not accept sql: query sandboxing is not enabled for it`, { param: 'sql' });
  }
  if (definition.redact_pii) {
    // Redaction runs on what leaves; SQL that splits a value or replaces its dots first gets it
    // out readable. Until the sources can be read redacted at the scan, an endpoint that is
    // always redacted runs no caller SQL at all (docs/redaction.md).
    throw new CanneryError(
      'sandbox_violation',
      `${definition.name} is always redacted (redact_pii: true), and sql could take a value apart before its redaction: it runs no sandbox query`,
      { param: 'sql' },
    );
  }
  if (sql.length > MAX_SANDBOX_SQL_LENGTH) {
    throw new CanneryError('sandbox_violation', `sql is ${sql.length} characters long; the limit is ${MAX_SANDBOX_SQL_LENGTH}`, { param: 'sql' });
  }
}

export function compileSandboxQuery(endpoint: Pick<CompiledEndpoint, 'definition' | 'statement'>, sql: string, dialect: Dialect): CompiledSql {
  const { definition } = endpoint;
  checkSandboxRequest(definition, sql);
  try {
    const statement = composeSandboxQuery(sql, { statement: endpoint.statement, declaredParams: Object.keys(definition.params) });
    return generate(statement, dialect, { rowCap: definition.max_rows });
  } catch (error) {
    if (error instanceof SandboxViolation) throw new CanneryError('sandbox_violation', error.message, { param: 'sql' });
    // As the backend's own refusal of the query is (service.ts): the caller's SQL means nothing.
    if (error instanceof InvalidQuery) throw new CanneryError('invalid_parameter', `sql cannot run: ${error.message}${at(error.location)}`, { param: 'sql' });
    if (error instanceof UnsupportedConstruct) {
      throw new CanneryError('sandbox_violation', `${error.message}${at(error.location)}; docs/sql.md lists the supported SQL`, { param: 'sql' });
    }
    throw error;
  }
}

function at(location: SqlLocation | undefined): string {
  return location ? ` (line ${location.line}, column ${location.column})` : '';
}
