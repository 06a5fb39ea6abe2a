/**
 * Completion for sandbox SQL from the endpoint's CTEs (GET /api/endpoints): CTE names, the columns
 * of the CTEs the query reads, and after a dot the fields of what precedes it, through table
 * aliases and UNNEST aliases (`unnest(m.request) as r` makes `r.` offer the request's fields);
 * and the functions a sandbox query may call, from the language table the service checks with.
 * Read from the text around the cursor as it is typed, unparsable as it often is then; the
 * server's parser is what decides.
 */
import type { CatalogEndpoint, CatalogField } from '../../src/core/types.js';
import { FUNCTIONS } from '../../src/sql/language.js';

export interface CompletionOption {
  label: string;
  /** CodeMirror's option types: the icon shown. */
  type: 'table' | 'property' | 'variable' | 'function';
  detail?: string;
}

export interface Completions {
  /** Where the word being completed starts. */
  from: number;
  options: CompletionOption[];
}

type Ctes = NonNullable<CatalogEndpoint['ctes']>;

const WORD = /[@A-Za-z_][\w]*$|$/;
const DOTTED = /([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)\.([A-Za-z_][\w]*)?$/;
/** Words that may follow a table name where an alias could: never an alias. */
const NOT_ALIASES = new Set(['where', 'cross', 'left', 'right', 'inner', 'full', 'join', 'on', 'using', 'group', 'order', 'limit', 'union', 'having', 'qualify', 'window', 'intersect', 'except']);

export function completionsAt(text: string, pos: number, endpoint: CatalogEndpoint): Completions | undefined {
  const ctes = endpoint.ctes ?? [];
  const before = text.slice(0, pos);
  const dotted = DOTTED.exec(before);
  if (dotted) {
    const fields = resolve(dotted[1]!.split('.'), text, ctes, 0);
    if (!fields) return undefined;
    return { from: pos - (dotted[2]?.length ?? 0), options: fields.map(fieldOption) };
  }
  const word = WORD.exec(before)![0];
  const from = pos - word.length;
  if (word.startsWith('@')) {
    return { from, options: Object.keys(endpoint.params).map((name) => ({ label: `@${name}`, type: 'variable', detail: 'parameter' })) };
  }
  const read = readCtes(text, ctes);
  const options: CompletionOption[] = [
    ...ctes.map((cte): CompletionOption => ({ label: cte.name, type: 'table', detail: 'CTE' })),
    ...read.flatMap((cte) => cte.columns.map((column) => ({ ...fieldOption(column), detail: `${cte.name}${column.type ? ` · ${column.type}` : ''}` }))),
    ...unnestAliases(text).flatMap(([alias, path]) => (resolve(path, text, ctes, 1) ?? []).map((field) => ({ ...fieldOption(field), detail: `${alias} · ${field.type ?? ''}` }))),
    ...[...FUNCTIONS].map(([name, spec]): CompletionOption => ({ label: name, type: 'function', detail: spec.summary })),
  ];
  return { from, options: unique(options) };
}

/** The fields of what `path` names: a CTE, a table alias, an UNNEST alias or a column, then nested fields. */
function resolve(path: readonly string[], text: string, ctes: Ctes, depth: number): CatalogField[] | undefined {
  // An alias defined by itself (`unnest(r) as r`) would never end.
  if (depth > 8 || path.length === 0) return undefined;
  const [head, ...rest] = path as [string, ...string[]];
  let fields: CatalogField[] | undefined;
  const cte = findCte(ctes, tableAliases(text, ctes).get(head.toLowerCase()) ?? head);
  if (cte) fields = cte.columns;
  else {
    const unnested = unnestAliases(text).find(([alias]) => alias.toLowerCase() === head.toLowerCase());
    if (unnested) fields = resolve(unnested[1], text, ctes, depth + 1);
    else fields = findField(readCtes(text, ctes).flatMap((one) => one.columns), head)?.fields;
  }
  for (const name of rest) fields = fields && findField(fields, name)?.fields;
  return fields;
}

/** `from edge_logs as t`, `join auth_logs a`: alias (lower case) -> CTE name. */
function tableAliases(text: string, ctes: Ctes): Map<string, string> {
  const aliases = new Map<string, string>();
  for (const match of text.matchAll(/\b(?:from|join)\s+([A-Za-z_]\w*)(?:\s+(?:as\s+)?([A-Za-z_]\w*))?/gi)) {
    const [, table, alias] = match as unknown as [string, string, string | undefined];
    if (!findCte(ctes, table) || alias === undefined || NOT_ALIASES.has(alias.toLowerCase())) continue;
    aliases.set(alias.toLowerCase(), table);
  }
  return aliases;
}

/** `unnest(m.request) as r`: [alias, the path it unnests], in the order written. */
function unnestAliases(text: string): [string, string[]][] {
  return [...text.matchAll(/\bunnest\s*\(\s*([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)\s*\)\s*(?:as\s+)?([A-Za-z_]\w*)/gi)]
    .filter((match) => !NOT_ALIASES.has(match[2]!.toLowerCase()))
    .map((match) => [match[2]!, match[1]!.split('.')]);
}

/** The endpoint CTEs named after FROM or JOIN. */
function readCtes(text: string, ctes: Ctes): Ctes {
  const named = new Set([...text.matchAll(/\b(?:from|join)\s+([A-Za-z_]\w*)/gi)].map((match) => match[1]!.toLowerCase()));
  return ctes.filter((cte) => named.has(cte.name.toLowerCase()));
}

function findCte(ctes: Ctes, name: string) {
  return ctes.find((cte) => cte.name.toLowerCase() === name.toLowerCase());
}

function findField(fields: readonly CatalogField[], name: string): CatalogField | undefined {
  return fields.find((field) => field.name.toLowerCase() === name.toLowerCase());
}

function fieldOption(field: CatalogField): CompletionOption {
  return { label: field.name, type: 'property', ...(field.type ? { detail: field.type } : {}) };
}

function unique(options: CompletionOption[]): CompletionOption[] {
  const seen = new Set<string>();
  return options.filter((option) => !seen.has(option.label) && seen.add(option.label));
}
