/**
 * PII redaction inside a sandbox query: with redaction on, every string the caller's SQL reads
 * from the endpoint's CTEs is redacted where it is read (redaction-rules.ts), so SQL that takes a
 * value apart (`replace(event_message, '.', ' . ')`, `split(x_real_ip, '.')`, a `LIKE` that tests
 * one, a join or a GROUP BY on one) only ever sees it redacted.
 *
 * "Read" means used by an expression: a function's or operator's argument, WHERE, ON, GROUP BY,
 * HAVING, ORDER BY, a window, a comparison of a subquery's rows. A value a SELECT passes on as it
 * is (`select event_message`, `*`) is no read: it is redacted where a later query reads it, or by
 * the output redactor when it leaves, which runs after the backend's LIMIT. Redacting in SQL there
 * would make DuckDB run the patterns on every row before a top-N, where a read costs what it reads.
 *
 * Taint is followed from the endpoint's CTEs (their columns traced to the sources' schemas, see
 * `endpointRelations`) through the caller's CTEs, subqueries, UNNESTs and set operations. What
 * cannot be redacted field by field is refused (`SandboxViolation`): a record or array of the
 * endpoint read whole by a function (`to_json_string(metadata)`), a computed column of unknown type,
 * a join USING a string column, a name the rewrite cannot place. Refusing is the safe side: the
 * output redactor still covers everything that leaves, and a refusal names what to write instead.
 */
import type { FieldShape, RecordShape, SourceShapes } from '../analyse/cte-columns.js';
import { staticType } from '../analyse/static-type.js';
import { impliedName } from '../analyse/item-names.js';
import { resolveFunction, TYPE_LOOKUP } from '../language.js';
import { redactedExpr } from './redaction-rules.js';
import { SandboxViolation } from './violation.js';
import type { Call, ColumnRef, Expr, FromItem, OrderItem, Query, QueryBody, Select, SelectItem, WindowSpec } from '../parse/tree.js';
import { mapExprChildren } from '../parse/walk.js';

/** What a value may hold of the endpoint's data, unredacted. */
type Taint =
  | { kind: 'clean' }
  /** A string: redacted where it is read. */
  | { kind: 'string' }
  /** An array of strings. */
  | { kind: 'list' }
  /** A (repeated) record of a source's schema. */
  | { kind: 'record'; shape: RecordShape }
  /** Something holding unredacted data whose structure is not known. */
  | { kind: 'opaque' };

const CLEAN: Taint = { kind: 'clean' };
const STRING: Taint = { kind: 'string' };
const LIST: Taint = { kind: 'list' };
const OPAQUE: Taint = { kind: 'opaque' };

interface Column {
  name: string;
  taint: Taint;
}

/** A relation's columns, in order. */
type Relation = readonly Column[];

interface Scope {
  /** CTEs visible here, by lower-case name. */
  ctes: ReadonlyMap<string, Relation>;
  /** FROM tables and subqueries by lower-case alias. */
  relations: Map<string, Relation>;
  /** UNNEST aliases (lower case) -> what an element holds; unaliased ones under a hidden name. */
  unnests: Map<string, Taint>;
  offsets: Set<string>;
  /** SELECT-list aliases, seen by GROUP BY, HAVING, ORDER BY and QUALIFY. */
  aliases?: Map<string, Taint>;
  parent: Scope | undefined;
}

/** Functions that read only whether a value is there, or how many elements it has. */
const STRUCTURAL = new Set(['array_length', 'count']);
/** Functions that give one of their arguments as it is, reading none (`IF` reads its condition). */
const CHOOSING = new Set(['coalesce', 'ifnull', 'if']);
const NON_STRING_TYPES = new Set(['int64', 'float64', 'numeric', 'bool', 'date', 'datetime', 'timestamp', 'time']);

function key(name: string): string {
  return name.toLowerCase();
}

function taintOf(shape: FieldShape | undefined): Taint {
  if (shape === undefined) return OPAQUE;
  if (typeof shape !== 'string') return { kind: 'record', shape };
  if (shape === 'string') return STRING;
  if (shape === 'string[]') return LIST;
  // JSON and BYTES (a declared source's) may hold text whose structure is not known.
  if (/^(json|bytes)(\[\])?$/.test(shape)) return OPAQUE;
  return CLEAN;
}

function isClean(taint: Taint): boolean {
  return taint.kind === 'clean';
}

/**
 * `taint.name`: a field of a record, by BigQuery's case-insensitive names. A field the schema does
 * not list is read as a string: BigQuery's table may have grown one (a log pipeline adds fields),
 * and if it is no string, the redaction's type error refuses the query rather than let it through.
 */
function fieldTaint(taint: Taint, name: string): Taint {
  if (taint.kind === 'clean') return CLEAN;
  if (taint.kind !== 'record') return OPAQUE;
  const field = Object.keys(taint.shape).find((one) => key(one) === key(name));
  return field === undefined ? STRING : taintOf(taint.shape[field]);
}

function follow(taint: Taint, fields: readonly string[]): Taint {
  return fields.reduce(fieldTaint, taint);
}

/** One taint for values that may come from either: the more guarded of the two. */
function merge(one: Taint, other: Taint): Taint {
  if (one.kind === 'clean') return other;
  if (other.kind === 'clean' || one.kind === other.kind) return one.kind === 'record' && other.kind === 'record' && one.shape !== other.shape ? OPAQUE : one;
  return OPAQUE;
}

/** `alias.*` of an UNNEST: the fields of its element, where they are known. */
function elementColumns(element: Taint | undefined): Relation {
  if (element?.kind === 'record') return Object.entries(element.shape).map(([name, shape]) => ({ name, taint: taintOf(shape) }));
  return element === undefined || element.kind === 'clean' ? [] : [{ name: '*', taint: OPAQUE }];
}

function rowTaint(relation: Relation): Taint {
  return relation.every((column) => isClean(column.taint)) ? CLEAN : OPAQUE;
}

function describe(expr: Expr): string {
  if (expr.kind === 'column') return [expr.table, expr.name, ...expr.fields].filter((part) => part !== undefined).join('.');
  if (expr.kind === 'field') return `${describe(expr.operand)}.${expr.name}`;
  return 'a value';
}

function isAggregate(call: Call): boolean {
  return call.over === undefined && resolveFunction(call.name)?.spec.kind === 'aggregate';
}

/** Whether the SELECT aggregates: an aggregate call in its items or HAVING, outside subqueries. */
function aggregates(select: Select): boolean {
  let found = false;
  const visit = (expr: Expr): Expr => {
    if (found) return expr;
    if (expr.kind === 'call' && isAggregate(expr)) found = true;
    else if (expr.kind !== 'subquery' && expr.kind !== 'exists' && expr.kind !== 'in_query' && expr.kind !== 'array_query') mapExprChildren(expr, { expr: visit, query: (query) => query });
    return expr;
  };
  for (const item of select.items) if (item.kind === 'item') visit(item.expr);
  if (select.having) visit(select.having);
  return found;
}

/**
 * Reads a query's relations. `rewrite` redacts and refuses (the caller's SQL); without it, the
 * walk only learns what each column holds (the endpoint's own SQL, which runs as written).
 */
function createReader(rewrite: boolean, sources: ReadonlyMap<string, Relation> = NO_SOURCES) {
  /** Numbers the keys of unaliased FROM items, which no name can spell. */
  let hidden = 0;

  function refuse(message: string): never {
    throw new SandboxViolation(`with PII redaction on, ${message}`);
  }

  function resolveHere(ref: ColumnRef, scope: Scope, withAliases: boolean): Taint | undefined {
    if (ref.table !== undefined) {
      const relation = scope.relations.get(key(ref.table));
      if (relation) {
        const column = relation.find((one) => key(one.name) === key(ref.name));
        return column ? follow(column.taint, ref.fields) : undefined;
      }
      const element = scope.unnests.get(key(ref.table));
      if (element) return follow(element, [ref.name, ...ref.fields]);
      // `a.b` where `a` names nothing in FROM: column `a` and its field `b`, as BigQuery reads it.
      return resolveHere({ ...ref, table: undefined, name: ref.table, fields: [ref.name, ...ref.fields] }, scope, withAliases);
    }
    const name = key(ref.name);
    const alias = withAliases ? scope.aliases?.get(name) : undefined;
    if (alias) return follow(alias, ref.fields);
    for (const relation of scope.relations.values()) {
      const column = relation.find((one) => key(one.name) === name);
      if (column) return follow(column.taint, ref.fields);
    }
    const element = scope.unnests.get(name);
    if (element) return follow(element, ref.fields);
    if (scope.offsets.has(name)) return CLEAN;
    const row = scope.relations.get(name);
    if (row) return follow(rowTaint(row), ref.fields);
    // A field of an UNNESTed record, visible by name; the innermost UNNEST wins.
    for (const element of [...scope.unnests.values()].reverse()) {
      if (element.kind === 'record' && Object.keys(element.shape).some((field) => key(field) === name)) return follow(fieldTaint(element, name), ref.fields);
      if (element.kind === 'opaque') return OPAQUE;
    }
    return undefined;
  }

  function resolve(ref: ColumnRef, scope: Scope, withAliases: boolean): Taint {
    for (let current: Scope | undefined = scope; current; current = current.parent) {
      const found = resolveHere(ref, current, withAliases && current === scope);
      if (found) return found;
    }
    if (rewrite) refuse(`the name ${describe(ref)} cannot be traced to a column of the endpoint's CTEs, so it cannot be redacted; check its spelling, or qualify it with its table`);
    return OPAQUE;
  }

  interface Value {
    expr: Expr;
    taint: Taint;
  }

  /** A value as an expression gives it, before anything reads it. */
  function value(expr: Expr, scope: Scope, withAliases = false): Value {
    switch (expr.kind) {
      case 'column':
        return { expr, taint: resolve(expr, scope, withAliases) };
      case 'field': {
        const operand = value(expr.operand, scope, withAliases);
        return { expr: { ...expr, operand: operand.expr }, taint: fieldTaint(operand.taint, expr.name) };
      }
      case 'subscript': {
        const array = value(expr.array, scope, withAliases);
        const index = read(expr.index, scope, withAliases);
        const element = array.taint.kind === 'list' ? STRING : array.taint.kind === 'string' ? OPAQUE : array.taint;
        return { expr: { ...expr, array: array.expr, index }, taint: element };
      }
      case 'subquery': {
        const inner = query(expr.query, scope, false);
        return { expr: { ...expr, query: inner.query }, taint: inner.columns[0]?.taint ?? CLEAN };
      }
      case 'call': {
        if (!CHOOSING.has(expr.name) || expr.over !== undefined) return computed(expr, scope, withAliases);
        const condition = expr.name === 'if' ? 1 : 0;
        let taint = CLEAN;
        const args = expr.args.map((arg, index) => {
          if (index < condition) return read(arg, scope, withAliases);
          const one = value(arg, scope, withAliases);
          taint = merge(taint, one.taint);
          return one.expr;
        });
        return { expr: { ...expr, args }, taint };
      }
      case 'case': {
        // A CASE with a subject compares it with each WHEN: that subject is read.
        const otherwise = expr.else && value(expr.else, scope, withAliases);
        let taint = otherwise?.taint ?? CLEAN;
        const whens = expr.whens.map((branch) => {
          const then = value(branch.then, scope, withAliases);
          taint = merge(taint, then.taint);
          return { when: read(branch.when, scope, withAliases), then: then.expr };
        });
        return { expr: { ...expr, subject: expr.subject && read(expr.subject, scope, withAliases), whens, else: otherwise?.expr }, taint };
      }
      case 'array_query': {
        const inner = query(expr.query, scope, false);
        const element = inner.columns[0]?.taint ?? CLEAN;
        return { expr: { ...expr, query: inner.query }, taint: element.kind === 'clean' ? CLEAN : element.kind === 'string' ? LIST : OPAQUE };
      }
      default:
        return computed(expr, scope, withAliases);
    }
  }

  /** An expression that reads its operands: each redacted, or refused when it cannot be. */
  function computed(expr: Expr, scope: Scope, withAliases: boolean): Value {
    if (expr.kind === 'binary' && (expr.operator === 'IS' || expr.operator === 'IS NOT') && expr.right.kind === 'literal' && expr.right.type === 'null') {
      // Whether a value is there reads none of it.
      return { expr: { ...expr, left: value(expr.left, scope, withAliases).expr }, taint: CLEAN };
    }
    // A HAVING MAX | MIN key is compared, so such a call reads its operands like any other.
    if (expr.kind === 'call' && STRUCTURAL.has(expr.name) && !expr.distinct && expr.over === undefined && expr.having === undefined && expr.args.length === 1 && expr.args[0]!.kind !== 'star_argument') {
      const operand = value(expr.args[0]!, scope, withAliases);
      if (operand.taint.kind !== 'string') return { expr: { ...expr, args: [operand.expr] }, taint: CLEAN };
    }
    const by = expr.kind === 'call' ? `the function ${expr.name.toUpperCase()}` : 'an expression';
    let unredacted = false;
    const mapped = mapExprChildren(expr, {
      expr: (child) => {
        const one = value(child, scope, withAliases);
        if (!isClean(one.taint)) unredacted = true;
        return readValue(one, child, by);
      },
      query: (inner) => query(inner, scope, expr.kind === 'in_query').query,
    });
    if (rewrite || !unredacted) return { expr: mapped, taint: CLEAN };
    // Only the endpoint's SQL gets here: a computed column is clean when its type holds no string.
    const type = staticType(expr, TYPE_LOOKUP);
    return { expr: mapped, taint: type !== undefined && NON_STRING_TYPES.has(type) ? CLEAN : OPAQUE };
  }

  /** What reading a value gives: a string redacted; anything else holding unredacted strings refused. */
  function readValue(one: Value, original: Expr, by: string): Expr {
    if (!rewrite || isClean(one.taint)) return one.expr;
    if (one.taint.kind === 'string') return redactedExpr(one.expr);
    return refuse(
      `${describe(original)} cannot be read whole by ${by}: its strings would be read unredacted. Select it as it is (what leaves is redacted), or read the fields you need (UNNEST it, or name a field)`,
    );
  }

  function read(expr: Expr, scope: Scope, withAliases = false): Expr {
    return readValue(value(expr, scope, withAliases), expr, 'an expression');
  }

  function readOrder(items: readonly OrderItem[], scope: Scope, withAliases: boolean): OrderItem[] {
    return items.map((item) => ({ ...item, expr: read(item.expr, scope, withAliases) }));
  }

  function readWindow(spec: WindowSpec, scope: Scope): WindowSpec {
    return { ...spec, partitionBy: spec.partitionBy.map((expr) => read(expr, scope)), orderBy: readOrder(spec.orderBy, scope, false) };
  }

  function lookupCte(name: string, scope: Scope | undefined): Relation | undefined {
    for (let current = scope; current; current = current.parent) {
      const cte = current.ctes.get(key(name));
      if (cte) return cte;
    }
    return undefined;
  }

  /** Puts a FROM item's names in scope; its subqueries and UNNEST arrays are read as it goes. */
  function fromItem(item: FromItem, scope: Scope): FromItem {
    switch (item.kind) {
      case 'table': {
        const relation = (item.qualified ? undefined : lookupCte(item.name, scope)) ?? sources.get(item.name);
        if (relation === undefined && rewrite) refuse(`table ${item.name} is not one this query can read`);
        scope.relations.set(key(item.alias ?? item.name), relation ?? [{ name: '*', taint: OPAQUE }]);
        return item;
      }
      case 'derived': {
        const inner = query(item.query, emptyScope(scope.ctes, scope.parent), false);
        // Unaliased, its columns are still visible by name (a hidden key no name can spell).
        scope.relations.set(key(item.alias ?? `\u0000subquery${hidden++}`), inner.columns);
        return { ...item, query: inner.query };
      }
      case 'unnest': {
        const array = value(item.array, scope);
        const element = array.taint.kind === 'list' ? STRING : array.taint.kind === 'record' ? array.taint : array.taint.kind === 'clean' ? CLEAN : OPAQUE;
        let arrayExpr = array.expr;
        if (array.taint.kind === 'string' && rewrite) arrayExpr = redactedExpr(array.expr);
        scope.unnests.set(key(item.alias ?? `\u0000unnest${hidden++}`), element);
        if (item.offsetAlias) scope.offsets.add(key(item.offsetAlias));
        return { ...item, array: arrayExpr };
      }
      case 'join_group': {
        // A parenthesised join resolves its names among its own items, then joins the FROM list.
        const group = emptyScope(scope.ctes, scope.parent);
        const items = item.items.map((inner) => fromItem(inner, group)).map((inner) => joinConditions(inner, group));
        for (const [name, relation] of group.relations) scope.relations.set(name, relation);
        for (const [name, element] of group.unnests) scope.unnests.set(name, element);
        for (const name of group.offsets) scope.offsets.add(name);
        return { ...item, items };
      }
      case 'unknown':
        return item;
    }
  }

  function joinConditions(item: FromItem, scope: Scope): FromItem {
    if (item.kind === 'unknown') return item;
    const join = item.join;
    if (join?.using && rewrite) {
      for (const name of join.using) {
        if (!isClean(resolve({ kind: 'column', name, fields: [] }, scope, false))) {
          refuse(`JOIN ... USING (${name}) would compare ${name} unredacted; join ON the columns instead`);
        }
      }
    }
    return join?.on ? ({ ...item, join: { ...join, on: read(join.on, scope) } } as FromItem) : item;
  }

  function emptyScope(ctes: ReadonlyMap<string, Relation>, parent?: Scope): Scope {
    return { ctes, relations: new Map(), unnests: new Map(), offsets: new Set(), parent };
  }

  interface SelectResult {
    select: Select;
    columns: Column[];
    scope: Scope;
  }

  /** `compare`: the rows are compared (a DISTINCT set operation, IN (subquery)), so each value is read. */
  function select(node: Select, outer: Scope, compare: boolean): SelectResult {
    const scope = emptyScope(outer.ctes, outer);
    const from = node.from.map((item) => fromItem(item, scope)).map((item) => joinConditions(item, scope));
    const grouped = compare || node.distinct || node.groupBy.length > 0 || aggregates(node);
    const columns: Column[] = [];
    let anonymous = 0;
    const items = node.items.map((item): SelectItem => {
      if (item.kind === 'star') {
        const relations = item.table === undefined ? [...scope.relations.values()] : [scope.relations.get(key(item.table)) ?? elementColumns(scope.unnests.get(key(item.table)))];
        const except = new Set(item.except.map(key));
        const replaced = new Set(item.replace.map((one) => key(one.alias)));
        for (const relation of relations) {
          for (const column of relation) {
            if (except.has(key(column.name))) continue;
            const taint = replaced.has(key(column.name)) ? CLEAN : column.taint;
            if (rewrite && grouped && !isClean(taint)) refuse(`SELECT DISTINCT * (or * with GROUP BY) would compare ${column.name} unredacted; name the columns instead`);
            columns.push({ name: column.name, taint });
          }
        }
        if (item.table === undefined) for (const [alias, element] of scope.unnests) if (!alias.startsWith('\u0000')) columns.push({ name: alias, taint: element });
        return { ...item, replace: item.replace.map((one) => ({ ...one, expr: read(one.expr, scope) })) };
      }
      const name = item.alias ?? impliedName(item.expr) ?? `f${anonymous++}_`;
      const passed = value(item.expr, scope);
      if (!rewrite || isClean(passed.taint) || !grouped) {
        columns.push({ name, taint: passed.taint });
        return { ...item, expr: passed.expr };
      }
      // Grouped or compared: the value is read, and keeps its name.
      columns.push({ name, taint: CLEAN });
      return { ...item, expr: read(item.expr, scope), alias: item.alias ?? impliedName(item.expr) };
    });
    scope.aliases = new Map(columns.map((column) => [key(column.name), column.taint]));
    const result: Select = {
      ...node,
      items,
      from,
      where: node.where && read(node.where, scope),
      groupBy: node.groupBy.map((expr) => read(expr, scope, true)),
      having: node.having && read(node.having, scope, true),
      qualify: node.qualify && read(node.qualify, scope, true),
      windows: node.windows.map((window) => ({ ...window, spec: readWindow(window.spec, scope) })),
    };
    // SELECT AS STRUCT: each row is one STRUCT of the items, holding whatever any of them holds.
    if (node.as === 'struct') return { select: result, columns: [{ name: '', taint: columns.every((column) => isClean(column.taint)) ? CLEAN : OPAQUE }], scope };
    return { select: result, columns, scope };
  }

  function body(node: QueryBody, outer: Scope, compare: boolean): { body: QueryBody; columns: Column[]; scope?: Scope } {
    if (node.kind === 'select') {
      const result = select(node, outer, compare);
      return { body: result.select, columns: result.columns, scope: result.scope };
    }
    if (node.kind === 'query') {
      const result = query(node, outer, compare);
      return { body: result.query, columns: result.columns };
    }
    const distinct = compare || node.operators.some((operator) => operator !== 'UNION ALL');
    const members = node.members.map((member) => body(member, outer, distinct));
    const columns = members[0]!.columns.map((column, index) => ({
      name: column.name,
      taint: members.reduce((taint, member) => merge(taint, member.columns[index]?.taint ?? CLEAN), CLEAN as Taint),
    }));
    return { body: { ...node, members: members.map((member) => member.body) }, columns };
  }

  function query(node: Query, outer: Scope, compare: boolean): { query: Query; columns: Column[] } {
    const ctes = new Map(outer.ctes);
    const withs = node.with.map((cte) => {
      const inner = query(cte.query, emptyScope(new Map(ctes)), false);
      ctes.set(key(cte.name), inner.columns);
      return { ...cte, query: inner.query };
    });
    const scoped: Scope = { ...outer, ctes };
    const result = body(node.body, scoped, compare);
    // ORDER BY sees the SELECT's names and aliases; over a set operation, its output columns.
    const orderScope = result.scope ?? { ...emptyScope(ctes, outer), aliases: new Map(result.columns.map((column) => [key(column.name), column.taint])) };
    return {
      query: {
        ...node,
        with: withs,
        body: result.body,
        orderBy: readOrder(node.orderBy, orderScope, true),
        limit: node.limit && { count: read(node.limit.count, scoped), offset: node.limit.offset && read(node.limit.offset, scoped) },
      },
      columns: result.columns,
    };
  }

  return { query, emptyScope };
}

const NO_SOURCES: ReadonlyMap<string, Relation> = new Map();

/** The endpoint's CTEs, each with what its columns hold of the sources' data. */
export type EndpointRelations = ReadonlyMap<string, Relation>;

export function endpointRelations(statement: Query, sources: SourceShapes): EndpointRelations {
  const sourceRelations = new Map<string, Relation>(
    [...sources].map(([name, row]) => [name, Object.entries(row).map(([column, shape]) => ({ name: column, taint: taintOf(shape) }))]),
  );
  const reader = createReader(false, sourceRelations);
  const ctes = new Map<string, Relation>();
  for (const cte of statement.with) {
    ctes.set(key(cte.name), reader.query(cte.query, reader.emptyScope(new Map(ctes)), false).columns);
  }
  return ctes;
}

/** The caller's query (its own CTEs and SELECT, before the endpoint's CTEs join it) with every read redacted. */
export function redactReads(consumer: Query, endpoint: EndpointRelations): Query {
  const reader = createReader(true);
  return reader.query(consumer, reader.emptyScope(endpoint), false).query;
}
