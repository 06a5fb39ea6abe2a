/**
 * BigQuery's repeated records, read where the DuckDB backend keeps one as its one element: a STRUCT,
 * NULL for no element (`stored: 'struct'` in the source's shapes; docs/storage.md). Reading a field
 * then reads that field's own column, where a list of structs would be read whole.
 *
 * - `CROSS JOIN UNNEST(x) AS a` (or a comma, or `JOIN ... ON TRUE`) leaves the FROM list: `a` is `x`
 *   itself, and the row is kept when `x IS NOT NULL` (one element; none drops the row, as BigQuery's
 *   join does). `LEFT JOIN UNNEST(x) AS a ON TRUE` is `a` = `x`, NULL when there is no element.
 * - `ARRAY_LENGTH(x)` is 1, NULL when x is NULL; `x[SAFE_OFFSET(0)]` / `x[SAFE_ORDINAL(1)]` is `x`;
 *   any other subscript reads the one-element list (empty when x is NULL), so that a position past
 *   the end is an error as in BigQuery.
 * - Anywhere else a value leaves in BigQuery's own type, every stored record in it written back as a
 *   one-element list (`[x]`), so callers see the same arrays of objects on the wire: in the outermost
 *   SELECT and `*`, in set operations and subqueries, as a function's argument. A CTE or a subquery
 *   in FROM passes stored values through unchanged, with their shapes, so that what reads it can
 *   still read a field's own column.
 *
 * An UNNEST that is not one of the lateral joins above (WITH OFFSET, first in FROM, beside a RIGHT or
 * FULL JOIN, ON with a condition) unnests the one-element list, as it would unnest a stored list:
 * whatever the layout, the same SQL runs or is refused. Where a relation's columns are not known,
 * nothing of it is stored otherwise than BigQuery types it, so nothing needs writing back.
 */
import type { Rewrite } from '../../../generator/dialect.js';
import { impliedName } from '../../../analyse/item-names.js';
import { elementOf, fieldOf, UNKNOWN, type Columns, type Shape } from '../../../analyse/shapes.js';
import type { Binary, ColumnRef, Expr, FromItem, Literal, Query, QueryBody, Select, SelectItem, StarItem, WriteBack } from '../../../parse/tree.js';
import { mapExprChildren } from '../../../parse/walk.js';
import { InvalidQuery } from '../../../parse/errors.js';
import type { ColumnField, ColumnType } from '../../../../core/types.js';

/** A relation's columns by lower-case name, with their own spelling; undefined when not known. */
type Relation = ReadonlyMap<string, { name: string; shape: Shape }> | undefined;

interface Scope {
  /** CTE name (lower case) -> its columns. */
  ctes: ReadonlyMap<string, Relation>;
  /** FROM relations by alias (lower case) -> their columns. */
  relations: ReadonlyMap<string, Relation>;
  /** UNNEST aliases (lower case) of stored records -> the element's SQL and shape. */
  elements: ReadonlyMap<string, { expr: Expr; shape: Shape }>;
  /** Other UNNEST aliases: their elements hold no stored record. */
  lists: ReadonlySet<string>;
  parent: Scope | undefined;
}

/**
 * Whether a query's values leave in BigQuery's types ('value'), may pass stored ones on ('pass'),
 * or are the answer's rows ('wire'): there a stored record selected as it is leaves as stored and
 * the backend writes it back as the rows are converted (`writeBack`), which costs a fraction of
 * rebuilding it in SQL.
 */
type Mode = 'value' | 'pass' | 'wire';

interface Resolved {
  expr: Expr;
  shape: Shape;
}

const NULL: Literal = { kind: 'literal', type: 'null', value: null };
const EMPTY_SCOPE_PART = new Map<string, never>();

function isStored(shape: Shape): shape is Extract<Shape, { kind: 'array' }> {
  return shape.kind === 'array' && shape.stored === 'struct';
}

/** Whether a value of this shape holds a stored record (under a list nothing is stored as a struct). */
function holdsStored(shape: Shape): boolean {
  if (isStored(shape)) return true;
  return shape.kind === 'struct' && [...shape.fields.values()].some(holdsStored);
}

function int64(value: number): Literal {
  return { kind: 'literal', type: 'int64', value: String(value) };
}

function isNull(expr: Expr): Binary {
  return { kind: 'binary', operator: 'IS', left: expr, right: NULL };
}

function isTrue(expr: Expr | undefined): boolean {
  return expr?.kind === 'literal' && expr.type === 'bool' && expr.value === true;
}

/** `expr.name`, as a column path where expr is one. */
/**
 * The shape of field `name` of a value of `shape`. An array has no fields: BigQuery refuses
 * `metadata.request` on a repeated record (UNNEST it, or subscript one element, first).
 */
function fieldAt(shape: Shape, name: string, at: Expr): Shape {
  if (shape.kind === 'array') throw new InvalidQuery(`Cannot access field ${name} on a value with type ARRAY: UNNEST the array, or read one element with [SAFE_OFFSET(0)], first`, at.loc);
  return fieldOf(shape, name);
}

function fieldPath(expr: Expr, name: string): Expr {
  return expr.kind === 'column' ? { ...expr, fields: [...expr.fields, name] } : { kind: 'field', operand: expr, name };
}

/** A stored value in BigQuery's type: each stored record a one-element list, NULL stays NULL. */
function written(expr: Expr, shape: Shape, notNull = false): Expr {
  if (!holdsStored(shape)) return expr;
  let inner: Expr;
  if (isStored(shape)) inner = { kind: 'array', elements: [written(expr, shape.element, true)] };
  else if (shape.kind === 'struct') {
    const names = shape.names;
    inner = { kind: 'struct', fields: names.map((name) => ({ name, expr: written(fieldPath(expr, name), shape.fields.get(name.toLowerCase())!) })) };
  } else return expr;
  return notNull ? inner : { kind: 'case', whens: [{ when: isNull(expr), then: NULL }], else: inner };
}

/** How the backend writes a stored value of this shape back as rows are converted; as `written` does in SQL. */
function writeBackOf(shape: Shape): WriteBack {
  const struct = isStored(shape) ? shape.element : shape;
  const fields: Record<string, WriteBack> = {};
  if (struct.kind === 'struct') {
    for (const name of struct.names) {
      const field = struct.fields.get(name.toLowerCase())!;
      if (holdsStored(field)) fields[name] = writeBackOf(field);
    }
  }
  return { list: isStored(shape), fields };
}

/**
 * The type a stored value of this shape has in its table, where DuckDB's JSON text of it
 * (`to_json`) reads back with JSON.parse as its wire value once the backend has finished it: every
 * scalar in it a STRING, INT64 or BOOL of a table whose types hold still (table-columns.ts). Its
 * fields in the table's order, which is the order `to_json` writes them in. Undefined otherwise.
 */
function storedJsonType(shape: Shape): ColumnType | undefined {
  switch (shape.kind) {
    case 'scalar':
      return shape.stored ? { kind: 'scalar', name: shape.stored } : undefined;
    case 'array': {
      const element = storedJsonType(shape.element);
      return element === undefined ? undefined : shape.stored === 'struct' ? element : { kind: 'array', element };
    }
    case 'struct': {
      const fields: ColumnField[] = [];
      for (const name of shape.names) {
        const type = storedJsonType(shape.fields.get(name.toLowerCase())!);
        if (type === undefined) return undefined;
        fields.push({ name, type });
      }
      return fields.length > 0 ? { kind: 'struct', fields } : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * `shape` without the claim that its stored records hold an object in every row: true of the
 * table's rows, not of a relation an outer join pads with NULLs, nor of a subscript's element.
 */
function mayBeNull(shape: Shape): Shape {
  switch (shape.kind) {
    case 'array':
      return { kind: 'array', element: mayBeNull(shape.element), stored: shape.stored };
    case 'struct':
      return { ...shape, fields: new Map([...shape.fields].map(([key, field]) => [key, mayBeNull(field)])) };
    default:
      return shape;
  }
}

function relationMayBeNull(relation: Relation): Relation {
  return relation && new Map([...relation].map(([key, column]) => [key, { ...column, shape: mayBeNull(column.shape) }]));
}

function relationOf(columns: Columns): Relation {
  return columns && new Map([...columns].map(([key, shape]) => [key, { name: key, shape }]));
}

/** How an UNNEST joins, when it is a lateral join this rewrite reads as its element. */
function lateralJoin(item: FromItem): 'cross' | 'left' | undefined {
  // WITH OFFSET stays an UNNEST, so that what runs on one layout runs on the other.
  if (item.kind !== 'unnest' || item.alias === undefined || item.offsetAlias !== undefined || item.join === undefined) return undefined;
  const { type, on } = item.join;
  if ((type === ',' || type === 'CROSS JOIN' || type === 'JOIN' || type === 'INNER JOIN') && (on === undefined || isTrue(on))) return 'cross';
  if ((type === 'LEFT JOIN' || type === 'LEFT OUTER JOIN') && isTrue(on)) return 'left';
  return undefined;
}

/** Functions that are NULL whenever an argument is (BigQuery's and DuckDB's alike). */
const STRICT_FUNCTIONS = new Set(['regexp_contains', 'starts_with', 'ends_with', 'lower', 'upper', 'length', 'char_length', 'strpos', 'trim', 'ltrim', 'rtrim', 'substr', 'substring', 'replace', 'concat', 'contains']);
const STRICT_OPERATORS = new Set(['=', '!=', '<>', '<', '>', '<=', '>=', 'LIKE', 'NOT LIKE', '+', '-', '*', '/', '||']);

/** Column paths whose NULL makes `expr` NULL. */
function strictPaths(expr: Expr): ColumnRef[] {
  switch (expr.kind) {
    case 'column':
      return [expr];
    case 'binary':
      return STRICT_OPERATORS.has(expr.operator) ? [...strictPaths(expr.left), ...strictPaths(expr.right)] : [];
    case 'between':
      return [...strictPaths(expr.operand), ...strictPaths(expr.low), ...strictPaths(expr.high)];
    case 'in_list':
      return strictPaths(expr.operand);
    case 'cast':
      return expr.safe ? [] : strictPaths(expr.operand);
    case 'call':
    case 'native':
      return STRICT_FUNCTIONS.has(expr.name) && !(expr.kind === 'call' && expr.over) ? expr.args.flatMap(strictPaths) : [];
    default:
      return [];
  }
}

/** Column paths whose NULL makes `condition` not TRUE: those of any top-level conjunct. */
function nullRejected(condition: Expr): ColumnRef[] {
  if (condition.kind === 'binary' && condition.operator === 'AND') return [...nullRejected(condition.left), ...nullRejected(condition.right)];
  return strictPaths(condition);
}

/** Whether `path` is `record` or a field under it. */
function isUnder(path: ColumnRef, record: Expr): boolean {
  if (record.kind !== 'column' || path.table?.toLowerCase() !== record.table?.toLowerCase() || path.name.toLowerCase() !== record.name.toLowerCase()) return false;
  return record.fields.length <= path.fields.length && record.fields.every((field, index) => field.toLowerCase() === path.fields[index]!.toLowerCase());
}

export function readStoredRecords(sourceColumns?: (source: string) => Columns): Rewrite {
  function cte(name: string, scope: Scope | undefined): { found: boolean; relation: Relation } {
    for (let current = scope; current; current = current.parent) {
      const key = name.toLowerCase();
      if (current.ctes.has(key)) return { found: true, relation: current.ctes.get(key) };
    }
    return { found: false, relation: undefined };
  }

  function column(ref: ColumnRef, scope: Scope | undefined): Resolved {
    const follow = (shape: Shape, fields: readonly string[]) => fields.reduce((at, name) => fieldAt(at, name, ref), shape);
    for (let current = scope; current; current = current.parent) {
      if (ref.table !== undefined) {
        const key = ref.table.toLowerCase();
        const element = current.elements.get(key);
        if (element) return path(element, [ref.name, ...ref.fields], ref);
        if (current.lists.has(key)) return { expr: ref, shape: UNKNOWN };
        if (current.relations.has(key)) return { expr: ref, shape: follow(current.relations.get(key)?.get(ref.name.toLowerCase())?.shape ?? UNKNOWN, ref.fields) };
        continue;
      }
      const key = ref.name.toLowerCase();
      const element = current.elements.get(key);
      if (element) return path(element, ref.fields, ref);
      if (current.lists.has(key)) return { expr: ref, shape: UNKNOWN };
      let unknown = false;
      for (const [alias, relation] of current.relations) {
        const found = relation?.get(key);
        // A stored record's path may be read where another relation has a column of its name (an
        // UNNEST's element stands in for its alias anywhere in the SELECT), so it is qualified.
        if (found) return { expr: holdsStored(found.shape) ? { ...ref, table: alias } : ref, shape: follow(found.shape, ref.fields) };
        unknown ||= relation === undefined;
      }
      // A relation whose columns are not known may have it: BigQuery would look no further out.
      if (unknown) break;
      // A FROM alias standing alone is its row, a STRUCT of its columns (`SELECT t AS row FROM t`).
      const row = ref.fields.length === 0 ? current.relations.get(key) : undefined;
      if (row !== undefined) return { expr: ref, shape: { kind: 'struct', fields: new Map([...row].map(([name, column]) => [name, column.shape])), names: [...row.values()].map((column) => column.name) } };
    }
    // `a.b` where `a` names no relation or alias is field `b` of a column `a`, as BigQuery reads it.
    if (ref.table !== undefined) {
      const asColumn = column({ ...ref, table: undefined, name: ref.table, fields: [ref.name, ...ref.fields] }, scope);
      if (asColumn.shape !== UNKNOWN) return asColumn;
    }
    return { expr: ref, shape: UNKNOWN };
  }

  function path(element: Resolved, fields: readonly string[], ref: ColumnRef): Resolved {
    return fields.reduce<Resolved>((at, name) => ({ expr: fieldPath(at.expr, name), shape: fieldAt(at.shape, name, ref) }), element);
  }

  /** An expression as stored, with its shape: paths into stored records are read, not written back. */
  function resolve(expr: Expr, scope: Scope): Resolved {
    switch (expr.kind) {
      case 'column':
        return column(expr, scope);
      case 'field': {
        const operand = resolve(expr.operand, scope);
        return { expr: { ...expr, operand: operand.expr }, shape: fieldAt(operand.shape, expr.name, expr) };
      }
      case 'subscript': {
        const array = resolve(expr.array, scope);
        const index = value(expr.index, scope);
        const shape: Shape = array.shape;
        if (!isStored(array.shape)) {
          // A source's repeated record or field is never NULL in BigQuery, only empty: a list stored
          // NULL for none is subscripted as [] (an error past its end, as in the other layout).
          const list = written(array.expr, array.shape);
          const never: Expr = shape.kind === 'array' ? { kind: 'native', name: 'coalesce', args: [list, { kind: 'array', elements: [] }] } : list;
          return { expr: { ...expr, array: never, index }, shape: mayBeNull(elementOf(array.shape)) };
        }
        const element = mayBeNull(array.shape.element);
        // The first element of a stored record is the record itself, when there is one (a SAFE_
        // form: NULL when there is none); any other position, or no record, is the subscript of
        // the one-element (or empty) list, which says it as BigQuery does.
        const first = expr.mode === 'ORDINAL' || expr.mode === 'SAFE_ORDINAL' ? 1 : 0;
        const safe = expr.mode === 'SAFE_OFFSET' || expr.mode === 'SAFE_ORDINAL';
        if (index.kind === 'literal' && index.type === 'int64' && index.value === String(first)) {
          if (safe) return { expr: array.expr, shape: element };
          const none: Expr = { ...expr, array: { kind: 'array', elements: [] }, index };
          return { expr: { kind: 'case', whens: [{ when: isNull(array.expr), then: none }], else: array.expr }, shape: element };
        }
        const list: Expr = { kind: 'case', whens: [{ when: isNull(array.expr), then: { kind: 'array', elements: [] } }], else: { kind: 'array', elements: [array.expr] } };
        return { expr: { ...expr, array: list, index }, shape: element };
      }
      default:
        return { expr: value(expr, scope), shape: UNKNOWN };
    }
  }

  /** An expression whose value leaves in BigQuery's type. */
  function value(expr: Expr, scope: Scope): Expr {
    switch (expr.kind) {
      case 'column':
      case 'field':
      case 'subscript': {
        const resolved = resolve(expr, scope);
        return written(resolved.expr, resolved.shape);
      }
      case 'call': {
        if (expr.name !== 'array_length' || expr.args.length !== 1 || expr.over) break;
        const array = resolve(expr.args[0]!, scope);
        if (!isStored(array.shape)) return { ...expr, args: [written(array.expr, array.shape)] };
        return { kind: 'case', whens: [{ when: isNull(array.expr), then: NULL }], else: int64(1) };
      }
      case 'binary': {
        // Writing back keeps NULL as NULL, so whether a value is NULL needs no writing back.
        if ((expr.operator !== 'IS' && expr.operator !== 'IS NOT') || expr.right.kind !== 'literal' || expr.right.type !== 'null') break;
        return { ...expr, left: resolve(expr.left, scope).expr };
      }
      default:
        break;
    }
    return mapExprChildren(expr, { expr: (child) => value(child, scope), query: (query) => rewriteQuery(query, scope, 'value').query });
  }

  function tableRelation(name: string, qualified: boolean, scope: Scope | undefined): Relation {
    if (!qualified) {
      const found = cte(name, scope);
      if (found.found) return found.relation;
    }
    return relationOf(sourceColumns?.(name));
  }

  /**
   * `*` and `t.*`: stored columns written back (or passed on), UNNEST aliases shown as BigQuery's `*`
   * shows them. Adds the columns it makes to `columns`; `known` is false when a relation's are not known.
   */
  function star(item: StarItem, scope: Scope, mode: Mode, aliases: readonly { alias: string; element?: Resolved }[], columns: Map<string, { name: string; shape: Shape }>): { items: SelectItem[]; known: boolean } {
    const shapeOut = (shape: Shape) => (mode === 'pass' ? shape : UNKNOWN);
    const excluded = new Set(item.except.map((name) => name.toLowerCase()));
    const replace = item.replace.map((entry) => {
      const resolved = resolve(entry.expr, scope);
      columns.set(entry.alias.toLowerCase(), { name: entry.alias, shape: shapeOut(resolved.shape) });
      return { ...entry, expr: mode === 'pass' ? resolved.expr : written(resolved.expr, resolved.shape) };
    });
    const replaced = new Set(replace.map((entry) => entry.alias.toLowerCase()));
    const relations = [...scope.relations.entries()].filter(([alias]) => item.table === undefined || alias === item.table.toLowerCase());
    const seen = new Map<string, number>();
    for (const [, relation] of relations) for (const key of relation?.keys() ?? []) seen.set(key, (seen.get(key) ?? 0) + 1);
    let known = true;
    for (const [alias, relation] of relations) {
      // Nothing is stored otherwise than BigQuery types it where the columns are not known.
      if (relation === undefined) {
        known = false;
        continue;
      }
      for (const [key, entry] of relation) {
        if (excluded.has(key) || replaced.has(key)) continue;
        columns.set(key, { name: entry.name, shape: shapeOut(entry.shape) });
        // A name two relations share is left as it is: BigQuery's `*` shows both.
        if (mode === 'value' && holdsStored(entry.shape) && seen.get(key) === 1) {
          replace.push({ expr: written({ kind: 'column', table: alias, name: entry.name, fields: [] }, entry.shape), alias: entry.name });
        }
      }
    }
    const shownAliases = item.table === undefined && aliases.some((alias) => alias.element) ? aliases.filter((alias) => !excluded.has(alias.alias.toLowerCase())) : [];
    // The other UNNEST aliases are shown here too, in FROM order, and left out of the `*` that the
    // next rewrite would expand with them.
    const except = [...item.except, ...shownAliases.filter((alias) => !alias.element).map((alias) => alias.alias)];
    const shown = shownAliases.map((alias): SelectItem => {
      if (!alias.element) {
        columns.set(alias.alias.toLowerCase(), { name: alias.alias, shape: UNKNOWN });
        return { kind: 'item', expr: { kind: 'column', name: alias.alias, fields: [] }, alias: alias.alias };
      }
      columns.set(alias.alias.toLowerCase(), { name: alias.alias, shape: shapeOut(alias.element.shape) });
      return { kind: 'item', expr: mode === 'pass' ? alias.element.expr : written(alias.element.expr, alias.element.shape), alias: alias.alias };
    });
    return { items: [{ ...item, except, replace }, ...shown], known };
  }

  function rewriteSelect(select: Select, parent: Scope, mode: Mode): { select: Select; scope: Scope; columns: Relation } {
    const relations = new Map<string, Relation>();
    const elements = new Map<string, Resolved>();
    const lists = new Set<string>();
    const scope: Scope = { ctes: EMPTY_SCOPE_PART, relations, elements, lists, parent };
    // An element read in place of a join is only a filter on the rows before it while no RIGHT or
    // FULL join can bring rows without them.
    const outerJoin = select.from.some((item) => item.kind !== 'unknown' && /^(RIGHT|FULL)/.test(item.join?.type ?? ''));
    // A relation an outer join may pad with NULLs: joined LEFT or FULL, before a RIGHT or FULL
    // join, or inside parentheses (taken as may-be-NULL whatever the joins there).
    const padded = (index: number | undefined): boolean =>
      index === undefined ||
      (index > 0 && /^(LEFT|FULL)/.test((select.from[index] as { join?: { type: string } }).join?.type ?? '')) ||
      select.from.slice(index + 1).some((item) => item.kind !== 'unknown' && /^(RIGHT|FULL)/.test(item.join?.type ?? ''));
    const from: FromItem[] = [];
    const filters: Expr[] = [];
    const aliases: { alias: string; element?: Resolved }[] = [];
    /**
     * One FROM item, added to the scope. Inside a parenthesised join (`grouped`) an UNNEST unnests
     * the written-back list: right wherever it stands, if not the cheapest read.
     */
    interface GroupScope extends Scope {
      relations: Map<string, Relation>;
      lists: Set<string>;
    }
    /**
     * One FROM item, added to the SELECT's scope and, inside a parenthesised join, to the join's own
     * (`group`), where its items are resolved: they see each other and the enclosing query, not the
     * items before it (resolve-names.ts). There an UNNEST unnests the written-back list: right
     * wherever it stands, if not the cheapest read.
     */
    const add = (item: FromItem, index: number, group?: GroupScope): FromItem | undefined => {
      if (item.kind === 'unknown') return item;
      if (item.kind === 'join_group') {
        const inner: GroupScope = { ctes: EMPTY_SCOPE_PART, relations: new Map(), elements: EMPTY_SCOPE_PART, lists: new Set(), parent };
        return { ...item, items: item.items.map((entry, position) => add(entry, position, inner)!) };
      }
      const relation = (alias: string, found: Relation) => {
        const columns = padded(group === undefined ? index : undefined) ? relationMayBeNull(found) : found;
        relations.set(alias.toLowerCase(), columns);
        group?.relations.set(alias.toLowerCase(), columns);
      };
      if (item.kind === 'unnest') {
        const array = resolve(item.array, group ?? scope);
        const join = lateralJoin(item);
        if (group === undefined && index > 0 && join !== undefined && !outerJoin && isStored(array.shape)) {
          const element = { expr: array.expr, shape: array.shape.element };
          elements.set(item.alias!.toLowerCase(), element);
          aliases.push({ alias: item.alias!, element });
          // No element, no row, as BigQuery's join; no test where every row holds the record.
          if (join === 'cross' && !array.shape.present) filters.push({ kind: 'binary', operator: 'IS NOT', left: array.expr, right: NULL });
          return undefined;
        }
        if (item.alias !== undefined) {
          lists.add(item.alias.toLowerCase());
          group?.lists.add(item.alias.toLowerCase());
          aliases.push({ alias: item.alias });
        }
        return { ...item, array: written(array.expr, array.shape) };
      }
      const alias = item.alias ?? (item.kind === 'table' ? item.name.slice(item.name.lastIndexOf('.') + 1) : undefined);
      if (item.kind === 'table') {
        if (alias !== undefined) relation(alias, tableRelation(item.name, item.qualified, parent));
        return item;
      }
      // A subquery in FROM sees the scope around this SELECT, not the items before it.
      const derived = rewriteQuery(item.query, parent, 'pass');
      if (alias !== undefined) relation(alias, derived.columns);
      return { ...item, query: derived.query };
    };
    select.from.forEach((item, index) => {
      const added = add(item, index);
      if (added) from.push(added);
    });
    // ONs see the whole FROM list, parenthesised joins' ONs included.
    const withOns = (item: FromItem): FromItem => {
      if (item.kind === 'unknown') return item;
      const inner = item.kind === 'join_group' ? { ...item, items: item.items.map(withOns) } : item;
      return inner.join?.on ? { ...inner, join: { ...inner.join, on: value(inner.join.on, scope) } } : inner;
    };
    const joined = from.map(withOns);
    const condition = select.where && value(select.where, scope);
    // `x IS NOT NULL` reads the whole STRUCT x; where the condition already drops a row whose x is
    // NULL (`m.project_ref = @project`), it is left out, and only the fields used are read.
    const rejected = condition === undefined ? [] : nullRejected(condition);
    const needed = filters.filter((filter) => !(filter.kind === 'binary' && rejected.some((path) => isUnder(path, filter.left))));
    const where = [...needed, ...(condition ? [condition] : [])].reduce<Expr | undefined>(
      (all, condition) => (all === undefined ? condition : { kind: 'binary', operator: 'AND', left: all, right: condition }),
      undefined,
    );

    const columns = new Map<string, { name: string; shape: Shape }>();
    let known = true;
    let anonymous = 0;
    // Written back as rows are converted only where each column's name is its own: a `*` may
    // bring names that clash.
    const wire = mode === 'wire' && select.items.every((item) => item.kind === 'item') ? new Map<string, WriteBack>() : undefined;
    const items = select.items.flatMap((item): SelectItem[] => {
      if (item.kind === 'star') {
        const expanded = star(item, scope, mode === 'wire' ? 'value' : mode, aliases, columns);
        known &&= expanded.known;
        return expanded.items;
      }
      const resolved = resolve(item.expr, scope);
      const raw = mode === 'pass' || (wire !== undefined && holdsStored(resolved.shape));
      // An answer's stored record DuckDB can write as JSON text is handed over as that text: one
      // string a row, where its STRUCT was some hundred vectors converted a value at a time.
      const json = wire !== undefined && raw ? storedJsonType(resolved.shape) : undefined;
      const expr: Expr = json ? { kind: 'native', name: 'to_json', args: [resolved.expr] } : raw ? resolved.expr : written(resolved.expr, resolved.shape);
      const implied = impliedName(item.expr);
      const name = item.alias ?? implied ?? `f${anonymous++}_`;
      columns.set(name.toLowerCase(), { name, shape: mode === 'pass' ? resolved.shape : UNKNOWN });
      if (wire !== undefined && raw) wire.set(name, json ? { ...writeBackOf(resolved.shape), json } : writeBackOf(resolved.shape));
      // Keep BigQuery's name for the column where the SQL written for it no longer implies it.
      const alias = item.alias ?? (implied !== undefined && impliedName(expr) !== implied ? implied : undefined);
      return [{ ...item, expr, alias }];
    });
    if (wire !== undefined && wire.size > 0) {
      // Two columns of one name (one entry in `columns`): the backend could not tell which to write back.
      if (columns.size !== select.items.length) return rewriteSelect(select, parent, 'value');
      writeBack = Object.fromEntries(wire);
    }
    return {
      scope,
      columns: known ? columns : undefined,
      select: {
        ...select,
        from: joined,
        items,
        where,
        groupBy: select.groupBy.map((expr) => value(expr, scope)),
        having: select.having && value(select.having, scope),
        qualify: select.qualify && value(select.qualify, scope),
      },
    };
  }

  function rewriteBody(body: QueryBody, scope: Scope, mode: Mode): { body: QueryBody; last: Scope; columns: Relation } {
    switch (body.kind) {
      case 'select': {
        const rewritten = rewriteSelect(body, scope, mode);
        // Values whose columns cannot all be told cannot be passed on: the reader would not know to write them back.
        if (mode === 'pass' && rewritten.columns === undefined) return rewriteBody(body, scope, 'value');
        return { body: rewritten.select, last: rewritten.scope, columns: rewritten.columns };
      }
      case 'query': {
        const rewritten = rewriteQuery(body, scope, mode);
        return { body: rewritten.query, last: scope, columns: rewritten.columns };
      }
      case 'set': {
        // Members may store a record differently: each writes its values back.
        const members = body.members.map((member) => rewriteBody(member, scope, 'value'));
        return { body: { ...body, members: members.map((member) => member.body) }, last: scope, columns: members[0]?.columns };
      }
    }
  }

  function rewriteQuery(query: Query, parent: Scope | undefined, mode: Mode): { query: Query; columns: Relation } {
    const ctes = new Map<string, Relation>();
    const scope: Scope = { ctes, relations: EMPTY_SCOPE_PART, elements: EMPTY_SCOPE_PART, lists: new Set(), parent };
    const withs = query.with.map((entry) => {
      const rewritten = rewriteQuery(entry.query, scope, 'pass');
      ctes.set(entry.name.toLowerCase(), rewritten.columns);
      return { ...entry, query: rewritten.query };
    });
    const body = rewriteBody(query.body, scope, mode);
    return {
      columns: body.columns,
      query: {
        ...query,
        with: withs,
        body: body.body,
        orderBy: query.orderBy.map((item) => ({ ...item, expr: value(item.expr, body.last) })),
      },
    };
  }

  let writeBack: Record<string, WriteBack> | undefined;
  return (query) => {
    writeBack = undefined;
    const rewritten = rewriteQuery(query, undefined, 'wire').query;
    return writeBack ? { ...rewritten, writeBack } : rewritten;
  };
}
