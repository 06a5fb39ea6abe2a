/** Sandbox SQL -> executable SQL for the active backend, or a 400 saying what is not allowed. */
import { CanneryError } from '../../core/errors.js';
import type { CompiledSql, Dialect } from '../../sql/generator/dialect.js';
import { generate } from '../../sql/generator/generate.js';
import { UnsealedRead } from '../../sql/generator/sealed.js';
import { UnsupportedConstruct } from '../../sql/generator/unsupported.js';
import { InvalidQuery } from '../../sql/parse/errors.js';
import type { SqlLocation } from '../../sql/parse/errors.js';
import { endpointRelations } from '../../sql/sandbox/redact-reads.js';
import { composeSandboxQuery, SandboxViolation } from '../../sql/sandbox/rules.js';
import type { EndpointDefinition } from '../../core/types.js';
import { sourceShapes } from './catalog.js';
import type { CompiledEndpoint } from '../compiled-endpoint.js';

/** Longest sandbox SQL accepted, in characters: room for real queries, not for parser abuse. */
export const MAX_SANDBOX_SQL_LENGTH = 100_000;

/** The built-in sources' rows, as the catalog describes them: where redaction traces what a CTE holds. */
const SOURCES = sourceShapes();

/** The refusals that need no parsing: sandbox off, SQL over the length cap. */
export function checkSandboxRequest(definition: EndpointDefinition, sql: string): void {
  if (!definition.sandbox) {
    throw new CanneryError('sandbox_not_enabled', `${definition.name} does not accept sql: query sandboxing is not enabled for it`, { param: 'sql' });
  }
  if (sql.length > MAX_SANDBOX_SQL_LENGTH) {
    throw new CanneryError('sandbox_violation', `sql is ${sql.length} characters long; the limit is ${MAX_SANDBOX_SQL_LENGTH}`, { param: 'sql' });
  }
}

export interface SandboxOptions {
  /**
   * PII redaction is on for the request: every string the SQL reads from the endpoint's CTEs is
   * redacted where it is read, on top of the redaction of what leaves (docs/redaction.md).
   */
  redact?: boolean | undefined;
}

export function compileSandboxQuery(endpoint: Pick<CompiledEndpoint, 'definition' | 'statement'>, sql: string, dialect: Dialect, options: SandboxOptions = {}): CompiledSql {
  const { definition } = endpoint;
  checkSandboxRequest(definition, sql);
  try {
    const redact = options.redact ? endpointRelations(endpoint.statement, SOURCES) : undefined;
    const statement = composeSandboxQuery(sql, { statement: endpoint.statement, declaredParams: Object.keys(definition.params), redact });
    return generate(statement, dialect, { rowCap: definition.max_rows, sealed: true });
  } catch (error) {
    if (error instanceof SandboxViolation) throw new CanneryError('sandbox_violation', error.message, { param: 'sql' });
    // What the rules let through and the sealed generation would not write: refused all the same.
    if (error instanceof UnsealedRead) throw new CanneryError('sandbox_violation', `${error.message}${at(error.location)}`, { param: 'sql' });
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
