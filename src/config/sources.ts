/**
 * The logical log sources an endpoint's SQL may read (in backticks), with the fields their
 * tables carry, as the log layout reads them: the DuckDB tables, the seed, name resolution and
 * docs/sql.md all read this model. It is made from the shipped source files (sources/*.yaml),
 * BigQuery's schema form, by `logSourceDescriptor`.
 *
 * The fields are those of the public schemas of these sources (docs/sql.md#sources says which):
 * Supabase Studio's field reference of each log table (packages/shared-data/log-constants.ts),
 * Logflare's Supabase ingest samples (priv/supabase/ingest_samples/*.json) and Supabase's
 * self-hosted log pipeline (docker/volumes/logs/vector.yml), plus fields that Studio's own
 * queries read though its field reference leaves them out (each marked where it is declared).
 * A client query that reads any of them gets values or NULLs, never "no such field".
 *
 * Every source row has id, timestamp, event_message and metadata; most have a top-level
 * project. Nested objects are stored as repeated records (one-element arrays), the convention
 * of the system the spec describes, so SQL reaches them with UNNEST.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { formatProblem } from './problem-line.js';
import type { DeclaredField, DeclaredType, SourceDeclaration } from './source-declaration.js';

/** A scalar type of a source field. */
export type ScalarType = 'string' | 'integer' | 'number' | 'boolean' | 'timestamp';
/** A repeated scalar (BigQuery `ARRAY<..>`), written as the element type with `[]`. */
export type ListType = `${ScalarType}[]`;
/** A field's type in a source schema: a scalar, an array of scalars, or a nested record stored as a repeated record. */
export type FieldShape = ScalarType | ListType | RecordShape;
export interface RecordShape {
  [field: string]: FieldShape;
}

/** The element type of an array-of-scalars field, or undefined for a scalar. */
export function listElement(shape: ScalarType | ListType): ScalarType | undefined {
  return shape.endsWith('[]') ? (shape.slice(0, -2) as ScalarType) : undefined;
}

/**
 * The top-level columns every source's table has, in order, besides `metadata` (a repeated record
 * of the source's own fields). The one list the storage and name resolution both read.
 */
export const COMMON_COLUMNS: Readonly<Record<string, ScalarType>> = {
  id: 'string',
  timestamp: 'timestamp',
  event_message: 'string',
  project: 'string',
};

/**
 * The column every source's table declares NOT NULL: every event has its time (import refuses one
 * without). The DuckDB dialect bounds the newest rows by it (dialects/duckdb/rewrites/top-n-bound.ts).
 */
export const NOT_NULL_COLUMN = 'timestamp';

export interface SourceDescriptor {
  /** Logical name, as written in SQL: `cloudflare.logs.prod`. */
  name: string;
  /** Top-level columns of this source besides `COMMON_COLUMNS` and `metadata`, in order. */
  columns?: Readonly<Record<string, ScalarType>>;
  /** Fields of the repeated `metadata` record. */
  metadata: RecordShape;
}

export function sourceNames(sources: readonly SourceDescriptor[] = BUILT_IN_SOURCES): string[] {
  return sources.map((source) => source.name);
}

/** Every top-level column of a source's table but `metadata`, in order: the common ones, then its own. */
export function topLevelColumns(source: Pick<SourceDescriptor, 'columns'>): Readonly<Record<string, ScalarType>> {
  return { ...COMMON_COLUMNS, ...source.columns };
}

const SCALAR_TYPES: Readonly<Partial<Record<DeclaredType, ScalarType>>> = {
  STRING: 'string',
  INT64: 'integer',
  FLOAT64: 'number',
  BOOL: 'boolean',
  TIMESTAMP: 'timestamp',
};

/**
 * A declaration in the log layout as the descriptor model says it: COMMON_COLUMNS first (with
 * `timestamp` REQUIRED), then the source's own scalar columns, then `metadata`, a repeated record
 * whose nested records are repeated records too, every scalar one of the five types. A declaration
 * outside that layout is refused by name: the log tables' storage is built for it alone.
 */
export function logSourceDescriptor(declaration: SourceDeclaration): SourceDescriptor {
  const where = declaration.file ?? declaration.name;
  const refuse = (why: string): never => {
    throw new Error(`${where}: source ${declaration.name} is not in the log layout: ${why}`);
  };
  const columns = [...declaration.columns];
  const metadata = columns.pop();
  if (metadata?.name !== 'metadata' || metadata.type !== 'RECORD' || metadata.mode !== 'REPEATED') {
    refuse('its last column must be metadata, a REPEATED RECORD');
  }
  Object.entries(COMMON_COLUMNS).forEach(([name, type], index) => {
    const column = columns[index];
    const mode = name === NOT_NULL_COLUMN ? 'REQUIRED' : 'NULLABLE';
    if (column?.name !== name || column.mode !== mode || SCALAR_TYPES[column.type] !== type) {
      refuse(`column ${index + 1} must be ${name}, ${mode}, of type ${type}`);
    }
  });
  const own = columns.slice(Object.keys(COMMON_COLUMNS).length).map((column): [string, ScalarType] => {
    const shape = fieldShape(column, column.name, refuse);
    return typeof shape === 'string' && !listElement(shape) ? [column.name, shape as ScalarType] : refuse(`column ${column.name} must be a NULLABLE scalar`);
  });
  // Keys in the descriptor's own order: name, columns (only when the source has its own), metadata.
  return {
    name: declaration.name,
    ...(own.length > 0 ? { columns: Object.fromEntries(own) } : {}),
    metadata: recordShape(metadata?.fields ?? [], 'metadata', refuse),
  };
}

function recordShape(fields: readonly DeclaredField[], path: string, refuse: (why: string) => never): RecordShape {
  return Object.fromEntries(fields.map((field) => [field.name, fieldShape(field, `${path}.${field.name}`, refuse)]));
}

function fieldShape(field: DeclaredField, path: string, refuse: (why: string) => never): FieldShape {
  if (field.type === 'RECORD') {
    if (field.mode !== 'REPEATED') refuse(`${path} must be a REPEATED RECORD, as every nested object is`);
    return recordShape(field.fields ?? [], path, refuse);
  }
  const scalar = SCALAR_TYPES[field.type] ?? refuse(`${path} is ${field.type}, not one of ${Object.keys(SCALAR_TYPES).join(', ')}`);
  if (field.mode === 'REQUIRED') refuse(`${path} must not be REQUIRED`);
  return field.mode === 'REPEATED' ? `${scalar}[]` : scalar;
}

/**
 * The shipped log sources' UUIDs (Logflare's `source=`, docs/ingest.md), fixed here forever as an
 * endpoint's `id:` is in its file: shippers configured with one keep working whatever the files
 * say.
 */
const BUILT_IN_IDS: Readonly<Record<string, string>> = {
  'cloudflare.logs.prod': '5c8bf981-68f6-4bd7-9ae4-72c494624ca1',
  'postgres.logs': 'a629da44-0b73-4287-97f1-de0a729b3e37',
  'deno-relay-logs': '1db4d9c3-e83e-465c-a807-c30f88b38117',
  'deno-subhosting-events': '47292ba4-03d7-47d8-b302-747cac82e056',
  'gotrue.logs.prod': '7dbf360d-809b-4065-9581-d9fc6b8eb093',
  'realtime.logs.prod': 'a0e49a8d-56a5-4847-aed6-2407fdb7e1cb',
  'storage.logs.prod.2': 'fbf003e7-77e5-4d0d-b9d6-581ab16c74f5',
  'postgREST.logs.prod': 'ee98e799-76d3-4399-93c2-661111b9c1ba',
  'pgbouncer.logs.prod': 'a40fa56b-60c0-49ec-b377-9f0e0b2490c0',
};

/**
 * The shipped log sources, in BUILT_IN_IDS' order: each a file in sources/ of the package (both
 * src/config and dist/config sit two levels below its root). Named one by one, not read as a
 * folder, so a file a user adds there is theirs, not a built-in.
 */
const BUILT_IN_FILES = Object.keys(BUILT_IN_IDS).map((name) => new URL(`../../sources/${name}.yaml`, import.meta.url));

async function readBuiltIns(): Promise<SourceDeclaration[]> {
  const files = BUILT_IN_FILES.map((url) => fileURLToPath(url));
  const texts = files.map((file) => readFileSync(file, 'utf8'));
  const ahead = precompiledDeclarations(builtInHash(texts));
  if (ahead) return ahead.map((declaration, index) => ({ ...declaration, id: BUILT_IN_IDS[declaration.name], file: files[index] }));
  // Only a file edited since the build gets here: the YAML and schema modules load for it alone.
  const { parseSourceFile } = await import('./source-files.js');
  return texts.map((text, index) => {
    const { declaration, problems } = parseSourceFile(text, files[index] ?? '');
    if (!declaration) throw new Error(`a shipped source file does not load:\n${problems.map(formatProblem).join('\n')}`);
    return { ...declaration, id: BUILT_IN_IDS[declaration.name] };
  });
}

/** Where the build writes the built-in declarations: dist/config/built-in-sources.json. */
export const PRECOMPILED_BUILT_INS = new URL('./built-in-sources.json', import.meta.url);

/** The hash the precompiled declarations record of the files' texts they were read from. */
export function builtInHash(texts: readonly string[]): string {
  return createHash('sha256').update(texts.join('\0')).digest('hex');
}

function precompiledDeclarations(hash: string): SourceDeclaration[] | undefined {
  let saved: { hash?: unknown; declarations?: SourceDeclaration[] };
  try {
    saved = JSON.parse(readFileSync(PRECOMPILED_BUILT_INS, 'utf8')) as typeof saved;
  } catch {
    return undefined;
  }
  return saved.hash === hash ? saved.declarations : undefined;
}

/** What the build writes to PRECOMPILED_BUILT_INS, from the files as they are now. */
export async function precompiledBuiltIns(): Promise<string> {
  const { parseSourceFile } = await import('./source-files.js');
  const texts = BUILT_IN_FILES.map((url) => readFileSync(url, 'utf8'));
  const declarations = texts.map((text) => parseSourceFile(text, '').declaration);
  return JSON.stringify({ hash: builtInHash(texts), declarations });
}

/**
 * The shipped log source declarations, read once when this module loads: every model of them
 * starts here. Parsing the nine files' YAML took about as long as the rest of a start's imports
 * together, in every thread that loads this module, so the build writes what they declare ahead of
 * time (schemas/build.mjs), used only for the very texts it was made from.
 */
export const BUILT_IN_DECLARATIONS: readonly SourceDeclaration[] = await readBuiltIns();

export const BUILT_IN_SOURCES: readonly SourceDescriptor[] = BUILT_IN_DECLARATIONS.map(logSourceDescriptor);

/** The namespace of the UUIDs made from source names (RFC 9562's version 5, a SHA-1 of it and the name). */
const SOURCE_ID_NAMESPACE = Buffer.from('9ce2fdbcb02e4b4482bc87f6373e7d70', 'hex');

/**
 * A source's UUID: the one its file declares, a shipped source's fixed one, else one made from its
 * name (lowercased: DuckDB's table names ignore case, and so does the rule that no two sources share
 * a name), so it is the same on every machine and at every start without anything written down.
 */
export function sourceId(declaration: Pick<SourceDeclaration, 'id' | 'name'>): string {
  if (declaration.id !== undefined) return declaration.id;
  const hash = createHash('sha1').update(SOURCE_ID_NAMESPACE).update(declaration.name.toLowerCase(), 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
