/**
 * Source files (`sources/*.yaml`, schemas/source.schema.json): each read into a SourceDeclaration
 * as endpoint files are read, with every problem at its file and line. Types come out by
 * BigQuery's standard names (the legacy INTEGER, FLOAT, BOOLEAN, STRUCT read as INT64, FLOAT64,
 * BOOL, RECORD) and every field has its mode (NULLABLE when the file leaves it out), so no reader
 * of a declaration meets a second spelling.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Problem } from '../core/types.js';
import { isYamlFileName } from './endpoint-folder.js';
import { schemaValidator } from './json-schema.js';
import { schemaProblems } from './schema-problems.js';
import {
  LEGACY_TYPE_NAMES,
  type DeclaredField,
  type DeclaredMode,
  type DeclaredType,
  type SourceDeclaration,
} from './source-declaration.js';
import { readYaml, type DataPath, type YamlSource } from './yaml-source.js';

export const SOURCE_SCHEMA_URL = new URL('../../schemas/source.schema.json', import.meta.url);
const validateSourceData = schemaValidator(SOURCE_SCHEMA_URL);

/** The types a `time_column` may have: a point in time, by which rows can be ordered. */
export const TIME_COLUMN_TYPES: readonly DeclaredType[] = ['TIMESTAMP', 'DATE', 'DATETIME'];

export interface SourceFileResult {
  /** Present exactly when `problems` is empty. */
  declaration?: SourceDeclaration;
  problems: Problem[];
  /**
   * The line of a column or nested field, by its dotted path as SQL reads it (`items.sku`), and of
   * `name`; empty unless the file is valid. Later checks (a column an endpoint reads, a
   * declaration BigQuery's table contradicts) point at the line that declares it.
   */
  fieldLines: Record<string, number>;
}

export interface SourceFolderResult {
  /** The valid declarations, by file name; a file with problems contributes none. */
  sources: SourceDeclaration[];
  problems: Problem[];
  /** Each valid declaration's field lines (SourceFileResult.fieldLines), by source name. */
  fieldLines: Map<string, Record<string, number>>;
}

/** A source folder that does not load: every problem of every file, each at its file and line. */
export class SourceFolderError extends Error {
  constructor(readonly problems: Problem[]) {
    super(problems.map((p) => `${p.file}:${p.line}: ${p.message}`).join('\n'));
    this.name = 'SourceFolderError';
  }
}

interface FieldData {
  name: string;
  type: string;
  mode?: DeclaredMode;
  description?: string;
  fields?: FieldData[];
}

interface SourceData {
  id?: string;
  name: string;
  description?: string;
  time_column?: string;
  columns: FieldData[];
  bigquery?: { table?: string };
}

/** Parses and validates one source file's text; `file` names it in problems and in the declaration. */
export function parseSourceFile(text: string, file: string): SourceFileResult {
  const source = readYaml(text, file);
  if (source.problems.length > 0) return { problems: source.problems, fieldLines: {} };
  const errors = validateSourceData(source.data);
  if (errors.length > 0) return { problems: schemaProblems(errors, source, file, 'a mapping of source fields'), fieldLines: {} };

  const data = source.data as SourceData;
  const problems = ruleProblems(data, source, file);
  if (problems.length > 0) return { problems, fieldLines: {} };

  const declaration: SourceDeclaration = { name: data.name, columns: data.columns.map(declaredField), file };
  if (data.id !== undefined) declaration.id = data.id;
  if (data.description !== undefined) declaration.description = data.description;
  if (data.time_column !== undefined) declaration.timeColumn = data.time_column;
  if (data.bigquery?.table !== undefined) declaration.bigqueryTable = data.bigquery.table;
  const fieldLines: Record<string, number> = { name: source.lineOf(['name']) };
  collectLines(data.columns, ['columns'], '', source, fieldLines);
  return { declaration, problems: [], fieldLines };
}

/** Reads and parses the source file at `path`; a file that cannot be read is one problem. */
export async function readSourceFile(path: string): Promise<SourceFileResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return { problems: [{ file: path, line: 1, message: `cannot read the source file: ${reason}` }], fieldLines: {} };
  }
  return parseSourceFile(text, path);
}

/**
 * Every `*.yaml` / `*.yml` file directly inside `dir`, by file name, with the rule across them:
 * no two declare one name (ignoring case, as DuckDB's table names do). A folder that does not
 * exist declares nothing: a project need not have its own sources.
 */
export async function readSourceFolder(dir: string): Promise<SourceFolderResult> {
  const results = await Promise.all((await listSourceFiles(dir)).map(readSourceFile));
  const sources: SourceDeclaration[] = [];
  const problems: Problem[] = [];
  const fieldLines = new Map<string, Record<string, number>>();
  const owners = new Map<string, { file: string; line: number }>();
  for (const result of results) {
    problems.push(...result.problems);
    const { declaration } = result;
    if (!declaration) continue;
    const file = declaration.file ?? dir;
    const line = result.fieldLines.name ?? 1;
    const first = owners.get(declaration.name.toLowerCase());
    if (first) {
      problems.push({ file, line, field: 'name', message: `source ${declaration.name} is already declared by ${first.file}:${first.line}` });
      continue;
    }
    owners.set(declaration.name.toLowerCase(), { file, line });
    sources.push(declaration);
    fieldLines.set(declaration.name, result.fieldLines);
  }
  return { sources, problems, fieldLines };
}

/** The declarations of a source folder; throws SourceFolderError naming every problem when any file has one. */
export async function loadSourceFolder(dir: string): Promise<SourceDeclaration[]> {
  const { sources, problems } = await readSourceFolder(dir);
  if (problems.length > 0) throw new SourceFolderError(problems);
  return sources;
}

async function listSourceFiles(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    const reason = code === 'ENOTDIR' ? 'is not a folder' : `cannot be read (${(error as Error).message})`;
    throw new Error(`source folder ${dir} ${reason}`, { cause: error });
  }
  return entries
    .filter((entry) => !entry.isDirectory() && isYamlFileName(entry.name))
    .map((entry) => entry.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => join(dir, name));
}

/** The standard name of a type the schema accepted. */
export function standardType(type: string): DeclaredType {
  return LEGACY_TYPE_NAMES[type] ?? (type as DeclaredType);
}

function declaredField(data: FieldData): DeclaredField {
  const field: DeclaredField = { name: data.name, type: standardType(data.type), mode: data.mode ?? 'NULLABLE' };
  if (data.description !== undefined) field.description = data.description;
  if (data.fields) field.fields = data.fields.map(declaredField);
  return field;
}

/** Rules JSON Schema cannot state: a RECORD and its fields, names unique within a record, the time column. */
function ruleProblems(data: SourceData, source: YamlSource, file: string): Problem[] {
  const problems: Problem[] = [];
  checkFields(data.columns, ['columns'], '', source, file, problems);
  if (data.time_column !== undefined) {
    const column = data.columns.find((c) => c.name.toLowerCase() === data.time_column?.toLowerCase());
    const allowed = TIME_COLUMN_TYPES.join(', ');
    const problem = (message: string) => problems.push({ file, line: source.lineOf(['time_column']), field: 'time_column', message });
    if (!column) {
      const names = data.columns.map((c) => c.name).join(', ');
      problem(`time_column ${data.time_column} is not a column of this source (columns: ${names})`);
    } else if (!TIME_COLUMN_TYPES.includes(standardType(column.type))) {
      problem(`time_column ${column.name} must be a ${allowed} column (it is ${standardType(column.type)})`);
    } else if (column.mode === 'REPEATED') {
      problem(`time_column ${column.name} must not be REPEATED: each row needs one time to be ordered by`);
    }
  }
  return problems.sort((a, b) => a.line - b.line);
}

function checkFields(fields: FieldData[], at: DataPath, prefix: string, source: YamlSource, file: string, problems: Problem[]): void {
  const seen = new Map<string, number>();
  fields.forEach((field, index) => {
    const path = [...at, index];
    const dotted = `${prefix}${field.name}`;
    const first = seen.get(field.name.toLowerCase());
    if (first !== undefined) {
      problems.push({
        file,
        line: source.lineOf([...path, 'name']),
        field: dotted,
        message: `column ${dotted} is declared twice (first on line ${first}); names are unique within a record, ignoring case, as in BigQuery`,
      });
    } else seen.set(field.name.toLowerCase(), source.lineOf([...path, 'name']));
    const isRecord = standardType(field.type) === 'RECORD';
    if (isRecord && !field.fields) {
      problems.push({ file, line: source.lineOf([...path, 'type']), field: dotted, message: `column ${dotted} is a ${field.type} and must list its fields` });
    }
    if (!isRecord && field.fields) {
      problems.push({ file, line: source.lineOf([...path, 'fields']), field: dotted, message: `column ${dotted} is a ${field.type}: only a RECORD has fields` });
    }
    if (isRecord && field.fields) checkFields(field.fields, [...path, 'fields'], `${dotted}.`, source, file, problems);
  });
}

function collectLines(fields: FieldData[], at: DataPath, prefix: string, source: YamlSource, lines: Record<string, number>): void {
  fields.forEach((field, index) => {
    const dotted = `${prefix}${field.name}`;
    lines[dotted] = source.lineOf([...at, index]);
    if (field.fields) collectLines(field.fields, [...at, index, 'fields'], `${dotted}.`, source, lines);
  });
}
