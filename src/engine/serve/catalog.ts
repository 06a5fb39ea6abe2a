/**
 * What a client needs to call the endpoints served without reading their files: each endpoint's
 * identity, settings and parameter specs, and, on sandbox endpoints, the CTEs a sandbox query may
 * read with their columns and the fields nested in them (from the source model: the log sources
 * of config/sources.ts and the project's declared sources as served). The console builds its
 * forms and its SQL completion from it.
 */
import type { DeclaredField, DeclaredType, SourceDeclaration } from '../../config/source-declaration.js';
import { BUILT_IN_SOURCES, topLevelColumns, type SourceDescriptor } from '../../config/sources.js';
import type { CatalogEndpoint, CatalogField, CatalogScalarType } from '../../core/types.js';
import { cteColumns, type FieldShape, type RecordShape, type SourceShapes } from '../../sql/analyse/cte-columns.js';
import type { Query } from '../../sql/parse/tree.js';
import type { CompiledEndpoint } from '../compiled-endpoint.js';

/** The columns of a source's table (sources.ts), metadata with the source's fields. */
function sourceRow(source: SourceDescriptor): RecordShape {
  return { ...topLevelColumns(source), metadata: source.metadata };
}

/** Every source's row by name: the log sources', then the declared ones'. */
export function sourceShapes(sources: readonly SourceDescriptor[] = BUILT_IN_SOURCES, declared: readonly SourceDeclaration[] = []): SourceShapes {
  return new Map([
    ...sources.map((source): [string, RecordShape] => [source.name, sourceRow(source)]),
    ...declared.map((source): [string, RecordShape] => [source.name, declaredRecord(source.columns)]),
  ]);
}

/** A declared type in the catalog's words: the log sources' where they share one, else BigQuery's name, lowercase. */
const CATALOG_TYPES: Readonly<Record<Exclude<DeclaredType, 'RECORD'>, CatalogScalarType>> = {
  STRING: 'string',
  INT64: 'integer',
  FLOAT64: 'number',
  BOOL: 'boolean',
  TIMESTAMP: 'timestamp',
  NUMERIC: 'numeric',
  BIGNUMERIC: 'bignumeric',
  DATE: 'date',
  DATETIME: 'datetime',
  TIME: 'time',
  BYTES: 'bytes',
  JSON: 'json',
};

function declaredRecord(fields: readonly DeclaredField[]): RecordShape {
  return Object.fromEntries(fields.map((field) => [field.name, declaredShape(field)]));
}

/** A RECORD is its fields, REPEATED or not: the fields after a dot are the same. */
function declaredShape(field: DeclaredField): FieldShape {
  if (field.type === 'RECORD') return declaredRecord(field.fields ?? []);
  const scalar = CATALOG_TYPES[field.type];
  return field.mode === 'REPEATED' ? `${scalar}[]` : scalar;
}

/** `fixed`: the values the caller's credential fixes (access/scopes.ts fixedValues). */
export function catalogEndpoint(endpoint: CompiledEndpoint, sources: SourceShapes, fixed?: Record<string, string[]>): CatalogEndpoint {
  const { definition } = endpoint;
  const entry: CatalogEndpoint = {
    id: definition.id,
    name: definition.name,
    description: definition.description,
    max_rows: definition.max_rows,
    cache: definition.cache,
    sandbox: definition.sandbox,
    redact_pii: definition.redact_pii,
    params: definition.params,
  };
  const limit = literalLimit(endpoint.statement);
  if (limit !== undefined && limit < definition.max_rows) entry.query_limit = limit;
  if (fixed) entry.fixed = fixed;
  if (definition.sandbox) {
    entry.ctes = cteColumns(endpoint.statement, sources).map((cte) => ({
      name: cte.name,
      columns: cte.columns.map((column) => catalogField(column.name, column.shape)),
    }));
  }
  return entry;
}

/** The outermost LIMIT when it is a whole-number literal (a LIMIT of a parameter has no fixed value). */
function literalLimit(statement: Query): number | undefined {
  const count = statement.limit?.count;
  return count?.kind === 'literal' && count.type === 'int64' && /^\d+$/.test(String(count.value)) ? Number(count.value) : undefined;
}

function catalogField(name: string, shape: FieldShape | undefined): CatalogField {
  if (shape === undefined) return { name };
  if (typeof shape === 'string') return { name, type: shape };
  return { name, type: 'record', fields: Object.entries(shape).map(([inner, innerShape]) => catalogField(inner, innerShape)) };
}
