/**
 * What a change to an endpoint does to its callers, each change classed breaking (a caller that
 * worked may now fail or misread the answer) or compatible (every caller that worked still does).
 */
import type { ColumnField, ColumnType, EndpointContract, EndpointDefinition, ParamSpec } from '../../core/types.js';
import { typeText } from './column-types.js';
import { cacheText } from './contract.js';

export type Compatibility = 'breaking' | 'compatible';

export type ChangeKind =
  | 'endpoint_added'
  | 'endpoint_removed'
  | 'endpoint_renamed'
  | 'id_changed'
  | 'param_added_required'
  | 'param_added_optional'
  | 'param_removed'
  | 'param_now_required'
  | 'param_now_optional'
  | 'param_type_changed'
  | 'enum_narrowed'
  | 'enum_widened'
  | 'format_added'
  | 'format_removed'
  | 'column_added'
  | 'column_removed'
  | 'column_renamed'
  | 'column_retyped'
  | 'columns_unknown'
  | 'sandbox_disabled'
  | 'sandbox_enabled'
  | 'max_rows_changed'
  | 'cache_changed'
  | 'redaction_changed'
  | 'query_changed'
  | 'description_changed'
  /** A source column or field the endpoint reads was removed or retyped, or the source itself (source-diff.ts). */
  | 'source_read_changed';

export type ChangeArea = 'endpoint' | 'params' | 'columns' | 'settings' | 'query' | 'sources';

export interface Change {
  kind: ChangeKind;
  area: ChangeArea;
  compatibility: Compatibility;
  /** One sentence, naming the parameter, column or setting. */
  message: string;
}

const BREAKING: ReadonlySet<ChangeKind> = new Set<ChangeKind>([
  'endpoint_removed',
  'endpoint_renamed',
  'id_changed',
  'param_added_required',
  'param_removed',
  'param_now_required',
  'param_type_changed',
  'enum_narrowed',
  'format_added',
  'column_removed',
  'column_renamed',
  'column_retyped',
  'columns_unknown',
  // Callers that send `sql` get sandbox_not_enabled: the parameter is gone.
  'sandbox_disabled',
  // The query no longer runs, or answers values of another type.
  'source_read_changed',
]);

const AREA: Record<ChangeKind, ChangeArea> = {
  endpoint_added: 'endpoint',
  endpoint_removed: 'endpoint',
  endpoint_renamed: 'endpoint',
  id_changed: 'endpoint',
  description_changed: 'endpoint',
  param_added_required: 'params',
  param_added_optional: 'params',
  param_removed: 'params',
  param_now_required: 'params',
  param_now_optional: 'params',
  param_type_changed: 'params',
  enum_narrowed: 'params',
  enum_widened: 'params',
  format_added: 'params',
  format_removed: 'params',
  column_added: 'columns',
  column_removed: 'columns',
  column_renamed: 'columns',
  column_retyped: 'columns',
  columns_unknown: 'columns',
  sandbox_disabled: 'settings',
  sandbox_enabled: 'settings',
  max_rows_changed: 'settings',
  cache_changed: 'settings',
  redaction_changed: 'settings',
  query_changed: 'query',
  source_read_changed: 'sources',
};

export function change(kind: ChangeKind, message: string): Change {
  return { kind, area: AREA[kind], compatibility: BREAKING.has(kind) ? 'breaking' : 'compatible', message };
}

type Params = EndpointContract['params'];

export function paramChanges(before: Params, after: Params): Change[] {
  const changes: Change[] = [];
  for (const [name, spec] of Object.entries(after)) {
    const old = before[name];
    if (!old) {
      changes.push(spec.required ? change('param_added_required', `new required parameter "${name}"`) : change('param_added_optional', `new optional parameter "${name}"`));
      continue;
    }
    changes.push(...specChanges(name, old, spec));
  }
  for (const name of Object.keys(before)) {
    if (!Object.hasOwn(after, name)) changes.push(change('param_removed', `parameter "${name}" removed: callers sending it get unknown_parameter`));
  }
  return changes;
}

function specChanges(name: string, before: Omit<ParamSpec, 'description'>, after: Omit<ParamSpec, 'description'>): Change[] {
  const changes: Change[] = [];
  if (before.type !== after.type) changes.push(change('param_type_changed', `parameter "${name}" changed type: ${before.type} -> ${after.type}`));
  if (before.required !== after.required) {
    changes.push(after.required ? change('param_now_required', `parameter "${name}" is now required`) : change('param_now_optional', `parameter "${name}" is now optional`));
  }
  const oldValues = before.enum;
  const newValues = after.enum;
  if (newValues && !oldValues) changes.push(change('enum_narrowed', `parameter "${name}" now only accepts ${newValues.join(', ')}`));
  if (oldValues && !newValues) changes.push(change('enum_widened', `parameter "${name}" no longer limits its values (was ${oldValues.join(', ')})`));
  if (oldValues && newValues) {
    const removed = oldValues.filter((value) => !newValues.includes(value));
    const added = newValues.filter((value) => !oldValues.includes(value));
    if (removed.length) changes.push(change('enum_narrowed', `parameter "${name}" no longer accepts ${removed.join(', ')}`));
    if (added.length) changes.push(change('enum_widened', `parameter "${name}" now also accepts ${added.join(', ')}`));
  }
  if (before.format !== after.format) {
    if (after.format) {
      changes.push(change('format_added', `parameter "${name}" must now be ${after.format === 'regex' ? 'an RE2 regular expression' : 'an ISO 8601 timestamp'}${before.format ? ` (was ${before.format})` : ''}`));
    } else {
      changes.push(change('format_removed', `parameter "${name}" no longer needs format ${before.format}`));
    }
  }
  return changes;
}

/**
 * Columns compared by name at every depth: a field of a record is a column of its own to its
 * callers. A column gone whose place a new one of the same type takes is a rename.
 */
export function columnChanges(before: readonly ColumnField[], after: readonly ColumnField[], path = ''): Change[] {
  const changes: Change[] = [];
  const noun = path ? 'field' : 'column';
  const renames = columnRenames(before, after);
  const renamedTo = new Set(renames.values());
  const oldByName = new Map(before.map((field) => [field.name, field]));
  const newNames = new Set(after.map((field) => field.name));
  for (const field of after) {
    if (renamedTo.has(field.name)) continue;
    const label = `${path}${field.name}`;
    const old = oldByName.get(field.name);
    if (!old) {
      changes.push(change('column_added', `new ${noun} "${label}" (${typeText(field.type, 1)})`));
      continue;
    }
    changes.push(...typeChanges(label, old.type, field.type));
  }
  for (const field of before) {
    if (newNames.has(field.name)) continue;
    const to = renames.get(field.name);
    changes.push(
      to === undefined
        ? change('column_removed', `${noun} "${path}${field.name}" removed`)
        : change('column_renamed', `${noun} "${path}${field.name}" renamed to "${path}${to}" (${typeText(field.type, 1)}): callers reading "${field.name}" find no such ${noun}`),
    );
  }
  return changes;
}

/** Old name -> new name of each column gone whose place (same position, same type) a new column takes. */
export function columnRenames(before: readonly ColumnField[], after: readonly ColumnField[]): Map<string, string> {
  const oldNames = new Set(before.map((field) => field.name));
  const newNames = new Set(after.map((field) => field.name));
  const renames = new Map<string, string>();
  before.forEach((field, index) => {
    const successor = after[index];
    if (newNames.has(field.name) || successor === undefined || oldNames.has(successor.name)) return;
    if (typeText(field.type) === typeText(successor.type)) renames.set(field.name, successor.name);
  });
  return renames;
}

function typeChanges(label: string, before: ColumnType, after: ColumnType): Change[] {
  if (before.kind === 'array' && after.kind === 'array') return typeChanges(`${label}[]`, before.element, after.element);
  if (before.kind === 'struct' && after.kind === 'struct') return columnChanges(before.fields, after.fields, `${label}.`);
  if (typeText(before) === typeText(after)) return [];
  return [change('column_retyped', `"${label}" changed type: ${typeText(before, 1)} -> ${typeText(after, 1)}`)];
}

export function settingChanges(before: EndpointDefinition, after: EndpointDefinition): Change[] {
  const changes: Change[] = [];
  if (before.sandbox !== after.sandbox) {
    changes.push(after.sandbox ? change('sandbox_enabled', 'sandbox on: callers may send sql') : change('sandbox_disabled', 'sandbox off: callers sending sql get sandbox_not_enabled'));
  }
  if (before.max_rows !== after.max_rows) changes.push(change('max_rows_changed', `max_rows ${before.max_rows} -> ${after.max_rows}`));
  if (JSON.stringify(before.cache) !== JSON.stringify(after.cache)) changes.push(change('cache_changed', `cache ${cacheText(before.cache)} -> ${cacheText(after.cache)}`));
  if (before.redact_pii !== after.redact_pii) {
    changes.push(change('redaction_changed', after.redact_pii ? 'redact_pii on: every answer is redacted' : 'redact_pii off: answers are redacted only on request'));
  }
  return changes;
}
