/**
 * Tables of user-declared sources (sources/*.yaml, config/source-declaration.ts) on the embedded
 * engine: one column per declared column, each in the DuckDB type the SQL generator holds that
 * BigQuery type in (sql/dialects/duckdb/semantics.ts), so an endpoint reads a declared column
 * exactly as it reads a value it computed. REQUIRED is NOT NULL, REPEATED a LIST, RECORD a STRUCT.
 *
 * A table is created when missing. When the declaration changes, what BigQuery itself allows of a
 * table's schema is done in place (a column or a record field added, INT64 -> NUMERIC or FLOAT64,
 * NUMERIC -> FLOAT64, REQUIRED relaxed to NULLABLE); anything that would drop or reinterpret stored
 * values is refused with what to do, never done silently. The log sources keep their own layout
 * (source-tables.ts) and never come here.
 */
import { DuckDBListType, DuckDBStructType, type DuckDBConnection, type DuckDBType } from '#duckdb-api';
import type { DeclaredField, DeclaredType, SourceDeclaration } from '../../config/source-declaration.js';
import { quoteIdentifier } from '../../sql/dialects/duckdb/quote.js';
import { DataError } from './data-error.js';
import { forgetImports } from './import/ledger.js';

/** The DuckDB type each BigQuery type is held in, as the generator holds it (semantics.ts DUCK_TYPE). */
const SCALAR_TYPES: Readonly<Record<Exclude<DeclaredType, 'RECORD' | 'BIGNUMERIC'>, string>> = {
  STRING: 'VARCHAR',
  BYTES: 'BLOB',
  INT64: 'BIGINT',
  FLOAT64: 'DOUBLE',
  NUMERIC: 'DECIMAL(38, 9)',
  BOOL: 'BOOLEAN',
  // An instant; the service runs with TimeZone=UTC. DATETIME is the zone-less civil time.
  TIMESTAMP: 'TIMESTAMPTZ',
  DATE: 'DATE',
  DATETIME: 'TIMESTAMP',
  TIME: 'TIME',
  JSON: 'JSON',
};

/** The DuckDB type of a declared field, its mode included (REPEATED is a list; NOT NULL is the column's, not the type's). */
export function declaredDuckdbType(field: DeclaredField, path = field.name): string {
  const element = elementType(field, path);
  return field.mode === 'REPEATED' ? `${element}[]` : element;
}

function elementType(field: DeclaredField, path: string): string {
  if (field.type === 'RECORD') {
    const fields = field.fields ?? [];
    if (fields.length === 0) throw new DataError('unsupported_table', `${path} is a RECORD with no fields, which DuckDB cannot hold`, { field: path });
    return `STRUCT(${fields.map((inner) => `${quoteIdentifier(inner.name)} ${declaredDuckdbType(inner, `${path}.${inner.name}`)}`).join(', ')})`;
  }
  if (field.type === 'BIGNUMERIC') {
    // DECIMAL stops at 38 digits; BIGNUMERIC holds 76. A DOUBLE would answer other digits than BigQuery.
    throw new DataError(
      'unsupported_table',
      `${path} is BIGNUMERIC, which the embedded engine cannot hold exactly (76 digits; DuckDB's DECIMAL stops at 38): ` +
        'declare it NUMERIC (38 digits, 9 after the point) or FLOAT64 to load it here, or serve this source on BigQuery',
      { field: path },
    );
  }
  return SCALAR_TYPES[field.type];
}

/** `CREATE TABLE` columns of a declaration. */
function columnDefinitions(source: SourceDeclaration): string {
  return source.columns
    .map((column) => `${quoteIdentifier(column.name)} ${declaredDuckdbType(column)}${column.mode === 'REQUIRED' ? ' NOT NULL' : ''}`)
    .join(', ');
}

export type DeclaredOutcome = 'created' | 'migrated' | 'unchanged';

interface StoredColumn {
  name: string;
  type: DuckDBType;
  notNull: boolean;
}

/** The stored columns of table `name`, in order, or undefined when there is no such table. */
async function storedColumns(connection: DuckDBConnection, name: string): Promise<StoredColumn[] | undefined> {
  const reader = await connection.runAndReadAll(
    `SELECT column_name, is_nullable FROM duckdb_columns()
     WHERE database_name = current_database() AND schema_name = current_schema() AND table_name = $name ORDER BY column_index`,
    { name },
  );
  const rows = reader.getRowObjectsJS() as { column_name: string; is_nullable: boolean }[];
  if (rows.length === 0) return undefined;
  // The DuckDBType tree is exact where DuckDB's type text needs parsing: one empty row set.
  const probe = await connection.runAndReadAll(`SELECT * FROM ${quoteIdentifier(name)} LIMIT 0`);
  const types = probe.columnTypes();
  return rows.map((row, index) => ({ name: row.column_name, type: types[index]!, notNull: !row.is_nullable }));
}

/** The DuckDB types of `typeTexts`, as DuckDB builds them (to compare with a stored column's). */
async function typesOf(connection: DuckDBConnection, typeTexts: readonly string[]): Promise<DuckDBType[]> {
  if (typeTexts.length === 0) return [];
  const reader = await connection.runAndReadAll(`SELECT ${typeTexts.map((type, index) => `CAST(NULL AS ${type}) AS c${index}`).join(', ')} LIMIT 0`);
  return reader.columnTypes();
}

/** How a stored type stands to a declared one: the same, widened in place by a cast, or not reachable without losing values. */
type Change = { kind: 'same' } | { kind: 'wider' } | { kind: 'refused'; path: string; why: string };

const SAME: Change = { kind: 'same' };
const WIDER: Change = { kind: 'wider' };

/** The widenings BigQuery allows of a column's type (tables.patch), which a DuckDB cast does exactly. */
const WIDENINGS: ReadonlySet<string> = new Set(['BIGINT>DECIMAL(38,9)', 'BIGINT>DOUBLE', 'DECIMAL(38,9)>DOUBLE']);

function compare(stored: DuckDBType, wanted: DuckDBType, path: string, describe: (type: DuckDBType) => string): Change {
  if (stored instanceof DuckDBListType || wanted instanceof DuckDBListType) {
    if (!(stored instanceof DuckDBListType && wanted instanceof DuckDBListType)) {
      return { kind: 'refused', path, why: `it is stored as ${describe(stored)} and declared ${describe(wanted)}; a mode cannot change between REPEATED and not` };
    }
    return compare(stored.valueType, wanted.valueType, path, describe);
  }
  if (stored instanceof DuckDBStructType || wanted instanceof DuckDBStructType) {
    if (!(stored instanceof DuckDBStructType && wanted instanceof DuckDBStructType)) {
      return { kind: 'refused', path, why: `it is stored as ${describe(stored)} and declared ${describe(wanted)}` };
    }
    let change: Change = stored.entryNames.length === wanted.entryNames.length ? SAME : WIDER;
    for (const [index, name] of stored.entryNames.entries()) {
      const at = wanted.entryNames.findIndex((other) => other.toLowerCase() === name.toLowerCase());
      if (at < 0) return { kind: 'refused', path: `${path}.${name}`, why: 'it is stored but no longer declared, and removing it would drop its values' };
      const inner = compare(stored.entryTypes[index]!, wanted.entryTypes[at]!, `${path}.${name}`, describe);
      if (inner.kind === 'refused') return inner;
      if (inner.kind === 'wider') change = WIDER;
    }
    return change;
  }
  const from = stored.toString();
  const to = wanted.toString();
  if (from === to && stored.alias === wanted.alias) return SAME;
  if (stored.alias === undefined && wanted.alias === undefined && WIDENINGS.has(`${from}>${to}`)) return WIDER;
  return { kind: 'refused', path, why: `it is stored as ${describe(stored)} and declared ${describe(wanted)}, which would reinterpret the stored values` };
}

/** BigQuery's name of a DuckDB type cannery stores, for messages. */
function bigQueryName(type: DuckDBType): string {
  if (type instanceof DuckDBListType) return `REPEATED ${bigQueryName(type.valueType)}`;
  if (type instanceof DuckDBStructType) return 'RECORD';
  if (type.alias === 'JSON') return 'JSON';
  const text = type.toString();
  const entry = Object.entries(SCALAR_TYPES).find(([, duck]) => duck.replace(/ /g, '') === text || (duck === 'TIMESTAMPTZ' && text === 'TIMESTAMP WITH TIME ZONE'));
  return entry?.[0] ?? text;
}

/** What a refused change is told to do: keep the stored column, or start the table afresh. */
function refusal(source: SourceDeclaration, what: string): DataError {
  const file = source.file ?? `the file declaring ${source.name}`;
  return new DataError(
    'unsupported_table',
    `source ${source.name}: ${what}. Nothing was changed. Either put it back as it was in ${file}, or start the table afresh ` +
      `with the new declaration: stop the server, run \`cannery sources drop ${source.name} --db FILE\` (it removes the table and its ` +
      'imports), then import the data again',
  );
}

/**
 * Makes the table of `source` exist as declared, migrating it in place where that keeps every
 * stored value and refusing (before changing anything) where it would not.
 */
export async function ensureDeclaredTable(connection: DuckDBConnection, source: SourceDeclaration): Promise<DeclaredOutcome> {
  const { outcome, statements } = await migration(connection, source);
  for (const statement of statements) await connection.run(statement);
  return outcome;
}

/** Whether every declared table is there as declared: nothing to write, so a file can be opened read-only. Reads only. */
export async function declaredTablesCurrent(connection: DuckDBConnection, sources: readonly SourceDeclaration[]): Promise<boolean> {
  for (const source of sources) if ((await migration(connection, source)).outcome !== 'unchanged') return false;
  return true;
}

/** What makes the table of `source` as declared: the statements, or a refusal thrown. Reads only. */
async function migration(connection: DuckDBConnection, source: SourceDeclaration): Promise<{ outcome: DeclaredOutcome; statements: string[] }> {
  const stored = await storedColumns(connection, source.name);
  if (stored === undefined) return { outcome: 'created', statements: [`CREATE TABLE ${quoteIdentifier(source.name)} (${columnDefinitions(source)})`] };
  const wantedTypes = await typesOf(connection, source.columns.map((column) => declaredDuckdbType(column)));
  const byName = new Map(source.columns.map((column, index) => [column.name.toLowerCase(), { column, type: wantedTypes[index]! }]));
  const statements: string[] = [];
  const table = quoteIdentifier(source.name);
  let rows: number | undefined;
  const rowCount = async () => (rows ??= Number((await connection.runAndReadAll(`SELECT count(*) AS n FROM ${table}`)).getRowObjectsJS()[0]!.n as bigint));
  // Every check before any change: a refusal leaves the table as it was.
  for (const column of stored) {
    const wanted = byName.get(column.name.toLowerCase());
    if (wanted === undefined) throw refusal(source, `column ${column.name} is stored but no longer declared, and removing it would drop its values`);
    const change = compare(column.type, wanted.type, column.name, bigQueryName);
    if (change.kind === 'refused') throw refusal(source, `${change.path}: ${change.why}`);
    if (change.kind === 'wider') statements.push(`ALTER TABLE ${table} ALTER COLUMN ${quoteIdentifier(column.name)} TYPE ${declaredDuckdbType(wanted.column)}`);
    const required = wanted.column.mode === 'REQUIRED';
    if (column.notNull && !required) statements.push(`ALTER TABLE ${table} ALTER COLUMN ${quoteIdentifier(column.name)} DROP NOT NULL`);
    if (!column.notNull && required) {
      const nulls = Number((await connection.runAndReadAll(`SELECT count(*) AS n FROM ${table} WHERE ${quoteIdentifier(column.name)} IS NULL`)).getRowObjectsJS()[0]!.n as bigint);
      if (nulls > 0) throw refusal(source, `column ${column.name} is declared REQUIRED but ${nulls} stored row(s) hold NULL there`);
      statements.push(`ALTER TABLE ${table} ALTER COLUMN ${quoteIdentifier(column.name)} SET NOT NULL`);
    }
  }
  const storedNames = new Set(stored.map((column) => column.name.toLowerCase()));
  for (const column of source.columns) {
    if (storedNames.has(column.name.toLowerCase())) continue;
    if (column.mode === 'REQUIRED' && (await rowCount()) > 0) {
      throw refusal(source, `column ${column.name} is new and REQUIRED, but the ${rows} stored row(s) have no value for it (declare it NULLABLE, as BigQuery requires of an added column)`);
    }
    statements.push(`ALTER TABLE ${table} ADD COLUMN ${quoteIdentifier(column.name)} ${declaredDuckdbType(column)}`);
    if (column.mode === 'REQUIRED') statements.push(`ALTER TABLE ${table} ALTER COLUMN ${quoteIdentifier(column.name)} SET NOT NULL`);
  }
  return { outcome: statements.length === 0 ? 'unchanged' : 'migrated', statements };
}

/** Every declared source's table, created or migrated; in one transaction, so a refusal leaves every table as it was. */
export async function ensureDeclaredTables(connection: DuckDBConnection, sources: readonly SourceDeclaration[]): Promise<{ name: string; outcome: DeclaredOutcome }[]> {
  const outcomes: { name: string; outcome: DeclaredOutcome }[] = [];
  if (sources.length === 0) return outcomes;
  await connection.run('BEGIN TRANSACTION');
  try {
    for (const source of sources) outcomes.push({ name: source.name, outcome: await ensureDeclaredTable(connection, source) });
    await connection.run('COMMIT');
  } catch (error) {
    await connection.run('ROLLBACK');
    throw error;
  }
  return outcomes;
}

/** `cannery sources drop`: the table of `name` and its rows in the imports ledger, gone in one transaction; whether there was one. */
export async function dropDeclaredTable(connection: DuckDBConnection, name: string): Promise<boolean> {
  if ((await storedColumns(connection, name)) === undefined) return false;
  await connection.run('BEGIN TRANSACTION');
  try {
    await connection.run(`DROP TABLE ${quoteIdentifier(name)}`);
    await forgetImports(connection, name);
    await connection.run('COMMIT');
  } catch (error) {
    await connection.run('ROLLBACK');
    throw error;
  }
  return true;
}

/**
 * `cannery compact` of a declared source with a `time_column`: the table rewritten in that column's
 * order, so each row group's zone map spans a short stretch of time and a time-bounded query skips
 * the rest (imports store rows in each file's order, as the log sources' do). The table is made
 * anew from its declaration, keeping its NOT NULL columns; one transaction. The rows rewritten, or
 * undefined when there is no table or no time column.
 */
export async function compactDeclaredTable(connection: DuckDBConnection, source: SourceDeclaration): Promise<number | undefined> {
  if (source.timeColumn === undefined || (await storedColumns(connection, source.name)) === undefined) return undefined;
  const table = quoteIdentifier(source.name);
  const staging = quoteIdentifier(`${source.name}.compacting`);
  await connection.run('BEGIN TRANSACTION');
  try {
    // The declaration first: a table it cannot take is refused, as at any open, before anything is rewritten.
    await ensureDeclaredTable(connection, source);
    await connection.run(`CREATE TABLE ${staging} (${columnDefinitions(source)})`);
    const result = await connection.run(`INSERT INTO ${staging} BY NAME SELECT * FROM ${table} ORDER BY ${quoteIdentifier(source.timeColumn)}`);
    await connection.run(`DROP TABLE ${table}`);
    await connection.run(`ALTER TABLE ${staging} RENAME TO ${table}`);
    await connection.run('COMMIT');
    return Number(result.rowsChanged);
  } catch (error) {
    await connection.run('ROLLBACK');
    throw error;
  }
}
