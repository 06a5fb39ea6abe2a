/**
 * `cannery diff` of the source files: what changed between two versions of the declared sources
 * (sources added and removed, columns and nested fields added, removed, retyped or of another
 * mode), and which endpoints each change reaches. A removed or retyped column an endpoint reads
 * breaks that endpoint (its query no longer runs, or answers values of another type); an added
 * one breaks none.
 *
 * Whether an endpoint reads a column is asked of the name resolution `cannery check` uses: the
 * endpoint's query, checked against the old declaration without that column, refuses a name. A
 * `*` over the source reads every column without naming one, so it counts as reading them all.
 */
import type { DeclaredField, SourceDeclaration } from '../../config/source-declaration.js';
import { declaredColumns, structShape, type Columns, type Shape } from '../../sql/analyse/shapes.js';
import { walkTree } from '../../sql/parse/walk.js';
import { unknownNameIn } from '../compile/compile.js';
import type { CompiledEndpoint } from '../compiled-endpoint.js';
import { change, type Change } from './contract-diff.js';

export interface SourceChange {
  /** The column or nested field by its dotted path (`items.qty`); undefined for the source as a whole. */
  path?: string;
  /** In a few words: `column total removed`, `column items.qty retyped INT64 -> STRING`. */
  message: string;
  /** Whether an endpoint reading it may break: a removal, another type, another mode but NULLABLE to REQUIRED. */
  breaksReaders: boolean;
  /** The endpoints (by name) that read it, where it breaks its readers. */
  readBy: string[];
}

export interface SourceDiff {
  name: string;
  status: 'added' | 'removed' | 'changed';
  /** The file that declares it now, or declared it at the base. */
  file: string;
  changes: SourceChange[];
}

const key = (name: string) => name.toLowerCase();

/** The changed sources between two versions of the declarations, paired by name ignoring case (as a folder refuses two such). */
export function diffSources(before: readonly SourceDeclaration[], after: readonly SourceDeclaration[]): SourceDiff[] {
  const diffs: SourceDiff[] = [];
  for (const now of after) {
    const old = before.find((declaration) => key(declaration.name) === key(now.name));
    if (!old) {
      diffs.push({ name: now.name, status: 'added', file: now.file ?? now.name, changes: [{ message: 'new source', breaksReaders: false, readBy: [] }] });
      continue;
    }
    const changes = fieldChanges(old.columns, now.columns, '');
    if (changes.length) diffs.push({ name: now.name, status: 'changed', file: now.file ?? now.name, changes });
  }
  for (const old of before) {
    if (after.some((declaration) => key(declaration.name) === key(old.name))) continue;
    diffs.push({ name: old.name, status: 'removed', file: old.file ?? old.name, changes: [{ message: 'source removed', breaksReaders: true, readBy: [] }] });
  }
  return diffs;
}

function typeText(field: DeclaredField): string {
  return field.mode === 'NULLABLE' ? field.type : `${field.type} ${field.mode}`;
}

function fieldChanges(before: readonly DeclaredField[], after: readonly DeclaredField[], prefix: string): SourceChange[] {
  const changes: SourceChange[] = [];
  for (const old of before) {
    const path = `${prefix}${old.name}`;
    const now = after.find((field) => key(field.name) === key(old.name));
    const at = (message: string, breaksReaders: boolean) => changes.push({ path, message: `column ${path} ${message}`, breaksReaders, readBy: [] });
    if (!now) {
      at('removed', true);
      continue;
    }
    if (old.type !== now.type) at(`retyped ${typeText(old)} -> ${typeText(now)}`, true);
    // A column that was never NULL stays readable as it was when it must hold a value.
    else if (old.mode !== now.mode) at(`mode ${old.mode} -> ${now.mode}`, !(old.mode === 'NULLABLE' && now.mode === 'REQUIRED'));
    if (old.type === 'RECORD' && now.type === 'RECORD') changes.push(...fieldChanges(old.fields ?? [], now.fields ?? [], `${path}.`));
  }
  for (const now of after) {
    const path = `${prefix}${now.name}`;
    if (!before.some((field) => key(field.name) === key(now.name))) changes.push({ path, message: `column ${path} added (${typeText(now)})`, breaksReaders: false, readBy: [] });
  }
  return changes;
}

/**
 * What the source changes do to each endpoint of the base (compiled against `before`, the base's
 * declarations, with `columns` the base's columns of every source): a breaking change per change
 * it reads, by endpoint name. Fills each change's `readBy`.
 */
export function sourceReadChanges(
  endpoints: readonly CompiledEndpoint[],
  diffs: readonly SourceDiff[],
  before: readonly SourceDeclaration[],
  columns: (source: string) => Columns,
): Map<string, Change[]> {
  const byEndpoint = new Map<string, Change[]>();
  for (const endpoint of endpoints) {
    const found: Change[] = [];
    for (const diff of diffs) {
      // The base's endpoints read the source by its name at the base (which may differ in case).
      const declaration = before.find((candidate) => key(candidate.name) === key(diff.name));
      if (diff.status === 'added' || !declaration || !endpoint.analysis.sources.includes(declaration.name)) continue;
      for (const sourceChange of diff.changes) {
        if (!sourceChange.breaksReaders) continue;
        const reads = sourceChange.path === undefined || readsField(endpoint, declaration, sourceChange.path, columns);
        if (!reads) continue;
        sourceChange.readBy.push(endpoint.definition.name);
        const what = sourceChange.path === undefined ? `reads source ${diff.name}` : `reads ${diff.name}.${sourceChange.path}`;
        found.push(change('source_read_changed', `${what}: ${sourceChange.message} (${diff.file})`));
      }
    }
    if (found.length) byEndpoint.set(endpoint.definition.name, found);
  }
  return byEndpoint;
}

function readsField(endpoint: CompiledEndpoint, declaration: SourceDeclaration, path: string, columns: (source: string) => Columns): boolean {
  let star = false;
  walkTree(endpoint.statement, (node) => {
    if (node.kind === 'star') star = true;
  });
  if (star) return true;
  const without = withoutField(declaredColumns(declaration), path.split('.'));
  return unknownNameIn(endpoint.statement, (source) => (source === declaration.name ? without : columns(source))) !== undefined;
}

/** The columns with the field at `path` left out: through records, and through repeated records' elements. */
function withoutField(columns: ReadonlyMap<string, Shape>, path: readonly string[]): ReadonlyMap<string, Shape> {
  const [first, ...rest] = path;
  const copy = new Map(columns);
  const shape = copy.get(key(first!));
  if (shape === undefined) return copy;
  if (rest.length === 0) copy.delete(key(first!));
  else copy.set(key(first!), shapeWithout(shape, rest));
  return copy;
}

function shapeWithout(shape: Shape, path: readonly string[]): Shape {
  if (shape.kind === 'array') return { ...shape, element: shapeWithout(shape.element, path) };
  if (shape.kind !== 'struct') return shape;
  const fields = withoutField(shape.fields, path);
  return structShape(shape.names.filter((name) => fields.has(key(name))).map((name) => [name, fields.get(key(name))!]));
}
