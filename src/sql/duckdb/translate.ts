/**
 * BigQuery -> DuckDB translation, emitted from node-sql-parser's AST.
 *
 * Every node type and function is handled explicitly; anything else raises
 * UnsupportedConstruct naming it, so `cannery check` reports it at load time rather than
 * DuckDB failing (or, worse, quietly disagreeing with BigQuery) at request time.
 *
 * Type mapping: BigQuery TIMESTAMP -> TIMESTAMPTZ (the session runs in UTC, so it is an
 * instant), DATETIME -> TIMESTAMP, INT64 -> BIGINT, FLOAT64 -> DOUBLE, STRING -> VARCHAR.
 */
import { functionArgs, functionName, identifierText, isNode, locationOf, setOperationMembers, withClauses } from '../ast.js';
import type { AstNode, SqlLocation } from '../parse.js';
import { AGGREGATES, FUNCTIONS, WINDOW_FUNCTIONS } from './functions.js';
import { decodeBigQueryString, quoteIdentifier, quoteString } from './literals.js';
import { UnsupportedConstruct } from './unsupported.js';
import { elementOf, fieldOf, hasField, SCALAR, UNKNOWN, type Columns, type Shape } from './shapes.js';
import { limitClause } from '../limit-clause.js';

export interface TranslateOptions {
  /** The DuckDB relation (already quoted) a logical source name maps to. */
  relationFor(source: string): string | undefined;
  /** SQL for a bound parameter, e.g. `$project`. */
  parameter(name: string): string;
  /** SQL that yields the execution time, bound once per query. */
  now: () => string;
  /** At most this many rows from the outermost query. */
  rowCap?: number;
  /** The columns of a logical source, for BigQuery's unqualified struct-field names. */
  sourceColumns?(source: string): Columns;
}

/** Names visible while translating one SELECT: CTEs, and UNNEST aliases. */
interface Scope {
  /** CTE name (lower case) -> its output columns, where known. */
  ctes: ReadonlyMap<string, Columns>;
  /** UNNEST alias (lower case) -> the SQL that names one element, and the element's shape. */
  unnestAliases: ReadonlyMap<string, UnnestAlias>;
  /** FROM relations of this SELECT by alias (lower case) -> their columns, where known. */
  relations: ReadonlyMap<string, Columns>;
  /** Element columns the projection form adds to the base relation, hidden from `SELECT *`. */
  projected: readonly ProjectedUnnest[];
  parent: Scope | undefined;
}

interface UnnestAlias {
  reference: string;
  element: Shape;
}

interface ProjectedUnnest {
  alias: string;
  column: string;
  reference: string;
}

/**
 * How a FROM list is emitted. BigQuery's `t CROSS JOIN UNNEST(t.a) AS x CROSS JOIN UNNEST(x.b) AS y`
 * chain is emitted as nested projections `(SELECT *, UNNEST(..) AS _u_x FROM t) AS t`: DuckDB
 * plans a chain of UNNEST joins as joins, 20-40x slower than unnesting in a projection.
 * `chain` is how many leading items (base + UNNESTs) take that form; the rest are joins.
 */
interface FromPlan {
  items: AstNode[];
  chain: number;
  baseAlias: string | undefined;
}

const CAST_TYPES: Record<string, string> = {
  STRING: 'VARCHAR',
  INT64: 'BIGINT',
  INTEGER: 'BIGINT',
  INT: 'BIGINT',
  BIGINT: 'BIGINT',
  FLOAT64: 'DOUBLE',
  NUMERIC: 'DECIMAL(38, 9)',
  BIGNUMERIC: 'DECIMAL(38, 9)',
  BOOL: 'BOOLEAN',
  BOOLEAN: 'BOOLEAN',
  TIMESTAMP: 'TIMESTAMPTZ',
  DATETIME: 'TIMESTAMP',
  DATE: 'DATE',
  TIME: 'TIME',
};

const INTERVAL_UNITS = new Set(['microsecond', 'millisecond', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year']);

const BINARY_OPERATORS = new Set([
  'AND', 'OR', '=', '!=', '<>', '<', '>', '<=', '>=', '+', '-', '*', '/', '||',
  'LIKE', 'NOT LIKE', 'IS', 'IS NOT', 'IN', 'NOT IN', 'BETWEEN', 'NOT BETWEEN',
]);

const JOINS = new Set(['JOIN', 'INNER JOIN', 'LEFT JOIN', 'LEFT OUTER JOIN', 'RIGHT JOIN', 'RIGHT OUTER JOIN', 'FULL JOIN', 'FULL OUTER JOIN', 'CROSS JOIN']);

const SET_OPERATIONS: Record<string, string> = {
  'union all': 'UNION ALL',
  'union distinct': 'UNION',
  'intersect distinct': 'INTERSECT',
  'except distinct': 'EXCEPT',
};

/** The internal name of the relation (join form) or column (projection form) of an UNNEST alias. */
function unnestName(alias: string): string {
  return quoteIdentifier(`_u_${alias}`);
}

function isTrue(node: unknown): boolean {
  return isNode(node) && node.type === 'bool' && node.value === true;
}

function offsetAliasOf(item: AstNode): string | undefined {
  if (!isNode(item.with_offset)) return undefined;
  return identifierText(item.with_offset.as) ?? 'offset';
}

/** An UNNEST that can be a projection: a lateral cross join, or a LEFT JOIN ... ON TRUE. */
function projectableUnnest(item: AstNode): boolean {
  if (item.type !== 'unnest' || typeof item.as !== 'string') return false;
  const join = typeof item.join === 'string' ? item.join.toUpperCase() : undefined;
  if (join === undefined || join === 'CROSS JOIN' || join === 'INNER JOIN' || join === 'JOIN') return item.on === undefined || item.on === null || isTrue(item.on);
  return (join === 'LEFT JOIN' || join === 'LEFT OUTER JOIN') && isTrue(item.on);
}

export function translateToDuckDb(statement: AstNode, options: TranslateOptions): string {
  const unsupported = (what: string, node?: AstNode, location?: SqlLocation): never => {
    throw new UnsupportedConstruct(what, (node && locationOf(node)) ?? location);
  };

  function unnestAlias(name: string, scope: Scope | undefined): UnnestAlias | undefined {
    for (let current = scope; current; current = current.parent) {
      const alias = current.unnestAliases.get(name.toLowerCase());
      if (alias !== undefined) return alias;
    }
    return undefined;
  }

  function unnestReference(name: string, scope: Scope | undefined): string | undefined {
    return unnestAlias(name, scope)?.reference;
  }

  function cteColumns(name: string, scope: Scope | undefined): Columns {
    for (let current = scope; current; current = current.parent) {
      if (current.ctes.has(name.toLowerCase())) return current.ctes.get(name.toLowerCase());
    }
    return undefined;
  }

  /**
   * BigQuery resolves an unqualified name to a column of a FROM relation, else to a field of an
   * UNNEST alias's struct element. DuckDB knows only the first; this finds the second, when the
   * relations' columns are known and none of them has the name. Returns the element's SQL.
   */
  function unnestFieldOwner(name: string, scope: Scope): string | undefined {
    const key = name.toLowerCase();
    for (const columns of scope.relations.values()) {
      if (columns === undefined || columns.has(key)) return undefined;
    }
    const aliases = [...scope.unnestAliases.values()].reverse();
    return aliases.find((alias) => hasField(alias.element, key))?.reference;
  }

  /** The shape of an expression, as far as column references and field access tell. */
  function shapeOf(node: unknown, scope: Scope): Shape {
    if (!isNode(node)) return UNKNOWN;
    if (node.type !== 'column_ref') return SCALAR;
    // Subscripted arrays (`a[OFFSET(0)]`) are not modelled.
    if (isNode(node.column) && Array.isArray(node.column.offset) && node.column.offset.length > 0) return UNKNOWN;
    const table = identifierText(node.table);
    const name = identifierText(node.column);
    if (name === undefined || name === '*') return UNKNOWN;
    let shape: Shape;
    if (table) {
      const alias = unnestAlias(table, scope);
      const relation = scope.relations.get(table.toLowerCase());
      shape = alias ? fieldOf(alias.element, name) : (relation?.get(name.toLowerCase()) ?? UNKNOWN);
    } else {
      const alias = unnestAlias(name, scope);
      shape = alias ? alias.element : columnShape(name, scope);
    }
    const fields = Array.isArray(node.subFields) ? node.subFields.map(String) : [];
    return fields.reduce(fieldOf, shape);
  }

  function columnShape(name: string, scope: Scope): Shape {
    for (const columns of scope.relations.values()) {
      const shape = columns?.get(name.toLowerCase());
      if (shape) return shape;
    }
    const owner = [...scope.unnestAliases.values()].reverse().find((alias) => hasField(alias.element, name));
    return owner ? fieldOf(owner.element, name) : UNKNOWN;
  }

  function isCte(name: string, scope: Scope | undefined): boolean {
    for (let current = scope; current; current = current.parent) {
      if (current.ctes.has(name.toLowerCase())) return true;
    }
    return false;
  }

  function query(select: AstNode, parent: Scope | undefined, rowCap?: number): string {
    return translatedQuery(select, parent, rowCap).sql;
  }

  /** A query's SQL and, where known, its output columns (so a CTE's columns are known to its readers). */
  function translatedQuery(select: AstNode, parent: Scope | undefined, rowCap?: number): { sql: string; columns: Columns } {
    const members = setOperationMembers(select);
    const ctes = new Map<string, Columns>();
    const scope: Scope = { ctes, unnestAliases: new Map(), relations: new Map(), projected: [], parent };
    // CTEs see the ones defined before them (and themselves are not recursive).
    const cteSql = withClauses(select).map((cte) => {
      const translated = translatedQuery(cte.stmt, scope);
      ctes.set(cte.name.toLowerCase(), translated.columns);
      return `${quoteIdentifier(cte.name)} AS (${translated.sql})`;
    });
    const withSql = cteSql.length ? `WITH ${cteSql.join(', ')} ` : '';
    // For a set operation the parser hangs ORDER BY / LIMIT on the last member; they apply to the whole.
    const last = members[members.length - 1]!;
    let lastScope = scope;
    let columns: Columns;
    const body = members
      .map((member, index) => {
        const core = selectCore(member, scope);
        lastScope = core.scope;
        if (index === 0) columns = core.columns;
        if (index === 0) return core.sql;
        const operation = String(members[index - 1]!.set_op ?? '').toLowerCase();
        const duckOperation = SET_OPERATIONS[operation] ?? unsupported(`set operation ${operation.toUpperCase() || 'UNION'} (write UNION ALL or UNION DISTINCT)`, member);
        return `${duckOperation} ${core.sql}`;
      })
      .join(' ');
    // ORDER BY after a set operation sees the result's columns, not a member's FROM.
    if (members.length > 1) lastScope = scope;
    const limitSql = limit(last.limit, rowCap, last);
    // BigQuery keeps no order from a CTE or subquery unless it is limited; DuckDB would still sort
    // every row (slow, and it blocks top-N pushdown into the scan), so only orders that matter are kept.
    const ordered = parent === undefined || limitSql !== '';
    return { sql: withSql + body + (ordered ? orderBy(last.orderby, lastScope) : '') + limitSql, columns };
  }

  function planFrom(select: AstNode): FromPlan {
    // An UNNEST without an alias still makes its struct fields visible by name; it gets a hidden one.
    const items = (Array.isArray(select.from) ? select.from.filter(isNode) : []).map((item, index) =>
      item.type === 'unnest' && !item.as ? { ...item, as: `_unnest_${index}` } : item,
    );
    const base = items[0];
    if (!base || base.type === 'unnest') return { items, chain: 0, baseAlias: undefined };
    let chain = 1;
    while (chain < items.length && projectableUnnest(items[chain]!)) chain++;
    const baseAlias = identifierText(base.as) ?? (base.expr === undefined ? implicitAlias(tableName(base)) : undefined);
    // A subquery needs an alias to be wrapped; without one the UNNESTs stay joins.
    return chain > 1 && baseAlias !== undefined ? { items, chain, baseAlias } : { items, chain: 0, baseAlias: undefined };
  }

  /** The names a SELECT's FROM list defines, item by item (an UNNEST's shape needs the items before it). */
  function scopeOf(plan: FromPlan, parent: Scope | undefined): Scope {
    const aliases = new Map<string, UnnestAlias>();
    const relations = new Map<string, Columns>();
    const projected: ProjectedUnnest[] = [];
    const scope: Scope = { ctes: new Map(), unnestAliases: aliases, relations, projected, parent };
    plan.items.forEach((item, index) => {
      if (item.type !== 'unnest') {
        const name = item.expr === undefined ? tableName(item) : undefined;
        const alias = identifierText(item.as) ?? implicitAlias(name);
        if (alias !== undefined) relations.set(alias.toLowerCase(), name === undefined ? undefined : relationColumns(name, item, parent));
        return;
      }
      if (typeof item.as !== 'string') return;
      const inChain = index < plan.chain;
      const reference = inChain
        ? `${quoteIdentifier(plan.baseAlias!)}.${unnestName(item.as)}`
        : `${unnestName(item.as)}.${quoteIdentifier(item.as)}`;
      aliases.set(item.as.toLowerCase(), { reference, element: elementOf(shapeOf(item.expr, scope)) });
      if (inChain) projected.push({ alias: item.as, column: unnestName(item.as), reference });
    });
    return scope;
  }

  function relationColumns(name: string, item: AstNode, scope: Scope | undefined): Columns {
    if (!item.db && isCte(name, scope)) return cteColumns(name, scope);
    return options.sourceColumns?.(name);
  }

  /** Output columns of a SELECT, where every item's name and shape can be told. */
  function outputColumns(select: AstNode, scope: Scope): Columns {
    const columns = new Map<string, Shape>();
    let anonymous = 0;
    for (const column of Array.isArray(select.columns) ? select.columns.filter(isNode) : []) {
      const expr = column.expr;
      if (!isNode(expr) || column.type === 'except') return undefined;
      if (expr.type === 'column_ref' && identifierText(expr.column) === '*') {
        const table = identifierText(expr.table);
        const sources = table ? [scope.relations.get(table.toLowerCase())] : [...scope.relations.values()];
        for (const relation of sources) {
          if (relation === undefined) return undefined;
          for (const [name, shape] of relation) columns.set(name, shape);
        }
        if (!table) for (const projection of scope.projected) columns.set(projection.alias.toLowerCase(), unnestAlias(projection.alias, scope)!.element);
        continue;
      }
      const fields = Array.isArray(expr.subFields) ? expr.subFields.map(String) : [];
      const explicit = identifierText(column.as);
      const implicit = explicit === undefined && expr.type !== 'column_ref' ? `f${anonymous++}_` : (fields[fields.length - 1] ?? identifierText(expr.column));
      const name = explicit ?? implicit;
      if (name === undefined) return undefined;
      columns.set(name.toLowerCase(), shapeOf(expr, scope));
    }
    return columns;
  }

  function selectCore(select: AstNode, parent: Scope): { sql: string; scope: Scope; columns: Columns } {
    if (select.type !== 'select') unsupported(`${String(select.type).toUpperCase()} statement`, select);
    const plan = planFrom(select);
    const scope = scopeOf(plan, parent);
    const parts = ['SELECT'];
    if (String(select.distinct ?? '').toUpperCase() === 'DISTINCT') parts.push('DISTINCT');
    if (!Array.isArray(select.columns)) unsupported('SELECT without columns', select);
    const anonymous = { count: 0 };
    parts.push((select.columns as unknown[]).filter(isNode).map((column) => selectItem(column, scope, anonymous)).join(', '));
    if (plan.items.length) parts.push('FROM ' + fromList(plan, scope));
    if (select.where) parts.push('WHERE ' + expression(select.where, scope));
    const groupBy = groupByItems(select.groupby);
    if (groupBy.length) parts.push('GROUP BY ' + groupBy.map((item) => expression(item, scope)).join(', '));
    if (select.having) parts.push('HAVING ' + expression(select.having, scope));
    if (select.qualify) unsupported('QUALIFY', select);
    if (select.for_sys_time_as_of) unsupported('FOR SYSTEM_TIME AS OF', select);
    if (select.as_struct_val) unsupported('SELECT AS STRUCT / AS VALUE', select);
    if (select.window) unsupported('WINDOW clause', select);
    return { sql: parts.join(' '), scope, columns: outputColumns(select, scope) };
  }

  function groupByItems(groupby: unknown): unknown[] {
    if (Array.isArray(groupby)) return groupby;
    if (isNode(groupby) && Array.isArray(groupby.columns)) return groupby.columns;
    return [];
  }

  function selectItem(column: AstNode, scope: Scope, anonymous: { count: number }): string {
    const expr = column.expr;
    if (column.type === 'except' && isNode(expr)) {
      const excluded = Array.isArray(column.expr_list) ? column.expr_list.filter(isNode) : [];
      const names = excluded.map((item) => (isNode(item.expr) ? expression(item.expr, scope) : unsupported('EXCEPT item', item)));
      return `${expression(expr, scope)} EXCLUDE (${names.join(', ')})`;
    }
    if (column.type === 'replace' && isNode(expr)) {
      const replacements = Array.isArray(column.expr_list) ? column.expr_list.filter(isNode) : [];
      const items = replacements.map((item) => `${expression(item.expr, scope)} AS ${quoteIdentifier(identifierText(item.as) ?? unsupported('REPLACE item without AS', item))}`);
      return `${expression(expr, scope)} REPLACE (${items.join(', ')})`;
    }
    if (!isNode(expr)) return unsupported('select item', column);
    if (expr.type === 'column_ref' && identifierText(expr.column) === '*' && scope.projected.length) return starWithProjections(expr, scope);
    // A bare UNNEST alias is emitted under its internal name; the column keeps the alias's name.
    const bareAlias = expr.type === 'column_ref' && !expr.table ? identifierText(expr.column) : undefined;
    // BigQuery names an unaliased expression f0_, f1_, ... (counting only such columns).
    const explicit = identifierText(column.as);
    if (explicit !== undefined) return `${expression(expr, scope)} AS ${quoteIdentifier(explicit)}`;
    const implicit = expr.type === 'column_ref' ? (bareAlias && unnestReference(bareAlias, scope) ? bareAlias : undefined) : `f${anonymous.count++}_`;
    return expression(expr, scope) + (implicit ? ` AS ${quoteIdentifier(implicit)}` : '');
  }

  /** BigQuery's `*` includes UNNEST aliases as columns named by the alias; `t.*` only t's columns. */
  function starWithProjections(star: AstNode, scope: Scope): string {
    const hidden = `EXCLUDE (${scope.projected.map((projection) => projection.column).join(', ')})`;
    const table = identifierText(star.table);
    if (table) return `${quoteIdentifier(table)}.* ${hidden}`;
    return [`* ${hidden}`, ...scope.projected.map((projection) => `${projection.reference} AS ${quoteIdentifier(projection.alias)}`)].join(', ');
  }

  function fromList(plan: FromPlan, scope: Scope): string {
    const { items, chain } = plan;
    const head = chain > 1 ? projectedChain(plan, scope) : undefined;
    return items
      .map((item, index) => {
        if (head !== undefined && index < chain) return index === 0 ? head : '';
        const relation = fromItem(item, scopeBefore(plan, index, scope));
        if (index === 0) return relation;
        const join = typeof item.join === 'string' ? item.join.toUpperCase() : undefined;
        // A comma before UNNEST is a lateral cross join in BigQuery; DuckDB spells it out.
        if (join === undefined) return item.type === 'unnest' ? `CROSS JOIN ${relation}` : `, ${relation}`;
        if (!JOINS.has(join)) return unsupported(join, item);
        const on = item.on ? ` ON ${expression(item.on, scope)}` : '';
        const using = Array.isArray(item.using)
          ? ` USING (${item.using.map((name) => quoteIdentifier(identifierText(name) ?? unsupported('USING column', item))).join(', ')})`
          : '';
        return `${join} ${relation}${on}${using}`;
      })
      .filter(Boolean)
      .join(' ');
  }

  /** The base relation with each chained UNNEST as one more projection level, all under the base's alias. */
  /**
   * The names a FROM item's own expressions see: only the items before it. In
   * `unnest(metadata) as metadata` the argument is the column, not the alias being defined.
   */
  function scopeBefore(plan: FromPlan, index: number, scope: Scope): Scope {
    return scopeOf({ ...plan, items: plan.items.slice(0, index) }, scope.parent);
  }

  function projectedChain(plan: FromPlan, scope: Scope): string {
    const alias = quoteIdentifier(plan.baseAlias!);
    let relation = fromItem(plan.items[0]!, scopeBefore(plan, 0, scope));
    for (let index = 1; index < plan.chain; index++) {
      const item = plan.items[index]!;
      const array = expression(item.expr, scopeBefore(plan, index, scope));
      const join = typeof item.join === 'string' ? item.join.toUpperCase() : '';
      // LEFT JOIN UNNEST keeps a row (with a NULL element) for a NULL or empty array.
      const elements = join.startsWith('LEFT') ? `(CASE WHEN len(${array}) > 0 THEN ${array} ELSE [NULL] END)` : array;
      // WITH OFFSET: a second UNNEST in the same projection runs in step with the first (0-based, as in BigQuery).
      const offsetAlias = offsetAliasOf(item);
      const offset = offsetAlias === undefined ? '' : `, UNNEST(range(len(${array}))) AS ${quoteIdentifier(offsetAlias)}`;
      relation = `(SELECT *, UNNEST(${elements}) AS ${unnestName(String(item.as))}${offset} FROM ${relation}) AS ${alias}`;
    }
    return relation;
  }

  function fromItem(item: AstNode, scope: Scope): string {
    const alias = identifierText(item.as);
    if (item.type === 'unnest') {
      if (!isNode(item.expr)) return unsupported('UNNEST argument', item);
      // planFrom gave every UNNEST an alias.
      const name = String(item.as);
      if (offsetAliasOf(item) !== undefined) unsupported('UNNEST ... WITH OFFSET here (it is supported right after the table it unnests, joined with CROSS JOIN, a comma or LEFT JOIN ... ON TRUE)', item);
      return `UNNEST(${expression(item.expr, scope)}) AS ${unnestName(name)}(${quoteIdentifier(name)})`;
    }
    const aliasSql = alias ? ` AS ${quoteIdentifier(alias)}` : '';
    if (isNode(item.expr)) {
      const sub = isNode(item.expr.ast) ? item.expr.ast : undefined;
      if (!sub) return unsupported('table expression in FROM', item);
      return `(${query(sub, scope)})${aliasSql}`;
    }
    const name = tableName(item);
    if (name === undefined) return unsupported('FROM item', item);
    const db = identifierText(item.db);
    if (!db && isCte(name, scope)) return quoteIdentifier(name) + aliasSql;
    const relation = options.relationFor(name);
    if (relation === undefined) return unsupported(`table \`${name}\` (neither a known source nor a CTE)`, item);
    // Without an explicit alias BigQuery lets `t.col` qualify by the table's last name part.
    return relation + (alias ? aliasSql : ` AS ${quoteIdentifier(implicitAlias(name)!)}`);
  }

  /** BigQuery's implicit alias of a table path is its last part: `cloudflare.logs.prod` -> `prod`. */
  function implicitAlias(name: string | undefined): string | undefined {
    return name?.split('.').pop();
  }

  function tableName(item: AstNode): string | undefined {
    const table = identifierText(item.table);
    if (table === undefined) return undefined;
    const db = identifierText(item.db);
    return db ? `${db}.${table}` : table;
  }

  function orderBy(items: unknown, scope: Scope): string {
    if (!Array.isArray(items) || items.length === 0) return '';
    const parts = items.filter(isNode).map((item) => {
      const direction = item.type === 'DESC' ? ' DESC' : item.type === 'ASC' ? ' ASC' : '';
      return expression(item.expr, scope) + direction;
    });
    return ' ORDER BY ' + parts.join(', ');
  }

  function limit(node: unknown, rowCap: number | undefined, owner: AstNode): string {
    return limitClause(node, rowCap, (what) => unsupported(what, owner));
  }

  function expression(value: unknown, scope: Scope): string {
    if (!isNode(value)) return unsupported('expression');
    const node = value;
    if (isNode(node.ast)) return `(${query(node.ast, scope)})`;
    switch (node.type) {
      case 'column_ref':
        return columnRef(node, scope);
      case 'param':
        return options.parameter(String(node.value));
      case 'number':
        return String(node.value);
      case 'single_quote_string':
      case 'double_quote_string':
      case 'string':
        return quoteString(decodeBigQueryString(String(node.value)));
      case 'regex_string':
        return quoteString(String(node.value));
      case 'bool':
        return node.value ? 'TRUE' : 'FALSE';
      case 'null':
        return 'NULL';
      case 'date':
        return `DATE ${quoteString(String(node.value))}`;
      case 'timestamp':
        return `TIMESTAMPTZ ${quoteString(String(node.value))}`;
      case 'datetime':
        return `TIMESTAMP ${quoteString(String(node.value))}`;
      case 'star':
        return '*';
      case 'binary_expr':
        return binary(node, scope);
      case 'unary_expr':
        return unary(node, scope);
      case 'case':
        return caseExpression(node, scope);
      case 'cast':
        return cast(node, scope);
      case 'interval':
        return interval(node, scope);
      case 'extract':
        return extract(node, scope);
      case 'function':
        return functionCall(node, scope);
      case 'aggr_func':
        return aggregate(node, scope);
      case 'any_value':
        return `any_value(${expression(isNode(node.args) ? node.args.expr : undefined, scope)})`;
      case 'expr_list':
        return `(${(Array.isArray(node.value) ? node.value : []).map((item) => expression(item, scope)).join(', ')})`;
      default:
        return unsupported(node.type === undefined ? 'expression' : `${String(node.type).replace(/_/g, ' ')}`, node);
    }
  }

  function columnRef(node: AstNode, scope: Scope): string {
    const table = identifierText(node.table);
    const column = node.column;
    if (isNode(column) && Array.isArray(column.offset) && column.offset.length > 0) {
      // `t.a[OFFSET(0)].b`: the parser nests the array under `column`, with `.b` as a text suffix.
      const array = isNode(column.expr) ? { ...column.expr, table: column.expr.table ?? node.table } : column.expr;
      const suffix = typeof column.suffix === 'string' ? column.suffix.split('.').filter(Boolean).map(quoteIdentifier) : [];
      return [subscripts(expression(array, scope), column.offset.filter(isNode), scope), ...suffix].join('.');
    }
    const name = identifierText(column);
    if (name === undefined) return unsupported('column reference', node);
    const fields = Array.isArray(node.subFields) ? node.subFields.map((field) => quoteIdentifier(String(field))) : [];
    const columnSql = name === '*' ? '*' : quoteIdentifier(name);
    let head: string[];
    const tableAlias = table ? unnestReference(table, scope) : undefined;
    const columnAlias = !table && name !== '*' ? unnestReference(name, scope) : undefined;
    if (tableAlias !== undefined) head = [tableAlias, columnSql];
    else if (columnAlias !== undefined) head = [columnAlias];
    else if (table) head = [quoteIdentifier(table), columnSql];
    else {
      const owner = name === '*' ? undefined : unnestFieldOwner(name, scope);
      head = owner === undefined ? [columnSql] : [owner, columnSql];
    }
    return [...head, ...fields].join('.');
  }

  function subscripts(base: string, offsets: AstNode[], scope: Scope): string {
    return offsets.reduce((sql, offset) => {
      const kind = String(offset.name ?? '').toUpperCase();
      const index = expression(offset.value, scope);
      // DuckDB lists are 1-based; an index out of range is NULL there, an error in BigQuery's OFFSET.
      if (kind === 'OFFSET' || kind === 'SAFE_OFFSET') return `${sql}[(${index}) + 1]`;
      if (kind === 'ORDINAL' || kind === 'SAFE_ORDINAL') return `${sql}[${index}]`;
      return unsupported(`array subscript ${kind || '[n]'} (write [OFFSET(n)] or [ORDINAL(n)])`, offset);
    }, base);
  }

  function binary(node: AstNode, scope: Scope): string {
    const operator = String(node.operator).toUpperCase();
    if (!BINARY_OPERATORS.has(operator)) return unsupported(`operator ${operator}`, node);
    const left = expression(node.left, scope);
    const right = node.right;
    if (operator === 'BETWEEN' || operator === 'NOT BETWEEN') {
      const bounds = isNode(right) && Array.isArray(right.value) ? right.value : [];
      if (bounds.length !== 2) return unsupported('BETWEEN without two bounds', node);
      return `(${left} ${operator} ${expression(bounds[0], scope)} AND ${expression(bounds[1], scope)})`;
    }
    if ((operator === 'IN' || operator === 'NOT IN') && isNode(right) && right.type === 'unnest') {
      return `(${left} ${operator} (SELECT UNNEST(${expression(right.expr, scope)})))`;
    }
    if ((operator === 'IN' || operator === 'NOT IN') && isNode(right) && right.type === 'expr_list') {
      const items = Array.isArray(right.value) ? right.value : [];
      const only = items.length === 1 && isNode(items[0]) && isNode(items[0].ast) ? items[0] : undefined;
      const list = only ? `(${query((only as AstNode).ast as AstNode, scope)})` : `(${items.map((item) => expression(item, scope)).join(', ')})`;
      return `(${left} ${operator} ${list})`;
    }
    // BigQuery's LIKE treats a backslash as the escape character; DuckDB's has none unless told.
    // A literal pattern without a backslash needs no ESCAPE, and without one DuckDB rewrites
    // LIKE '%x%' as contains() (usage.api-counts' four LIKEs: about a third of the cost).
    const pattern = expression(right, scope);
    const escape = (operator === 'LIKE' || operator === 'NOT LIKE') && !/^'[^'\\]*'$/.test(pattern) ? " ESCAPE '\\'" : '';
    return `(${left} ${operator} ${pattern}${escape})`;
  }

  function unary(node: AstNode, scope: Scope): string {
    const operator = String(node.operator).toUpperCase();
    if (operator === 'NOT') return `(NOT ${expression(node.expr, scope)})`;
    if (operator === 'NOT EXISTS' && isNode(node.expr) && isNode(node.expr.ast)) return `(NOT EXISTS (${query(node.expr.ast, scope)}))`;
    // The space keeps `-(-1)` from becoming `--1`, a comment.
    if (operator === '-' || operator === '+') return `(${operator} ${expression(node.expr, scope)})`;
    return unsupported(`unary operator ${operator}`, node);
  }

  function caseExpression(node: AstNode, scope: Scope): string {
    const subject = node.expr ? ` ${expression(node.expr, scope)}` : '';
    const branches = (Array.isArray(node.args) ? node.args : []).filter(isNode).map((branch) => {
      if (branch.type === 'when') return `WHEN ${expression(branch.cond, scope)} THEN ${expression(branch.result, scope)}`;
      if (branch.type === 'else') return `ELSE ${expression(branch.result, scope)}`;
      return unsupported('CASE branch', branch);
    });
    return `(CASE${subject} ${branches.join(' ')} END)`;
  }

  function cast(node: AstNode, scope: Scope): string {
    const targets = Array.isArray(node.target) ? node.target.filter(isNode) : [];
    const bigQueryType = String(targets[0]?.dataType ?? '').toUpperCase();
    const duckType = CAST_TYPES[bigQueryType];
    if (targets.length !== 1 || duckType === undefined) {
      return unsupported(`CAST to ${bigQueryType || 'this type'} (supported: ${Object.keys(CAST_TYPES).join(', ')})`, node);
    }
    const keyword = String(node.keyword).toLowerCase() === 'safe_cast' ? 'TRY_CAST' : 'CAST';
    return `${keyword}(${expression(node.expr, scope)} AS ${duckType})`;
  }

  function interval(node: AstNode, scope: Scope): string {
    const unit = String(node.unit ?? '').toLowerCase();
    if (!INTERVAL_UNITS.has(unit)) return unsupported(`INTERVAL unit ${unit.toUpperCase()}`, node);
    return `(INTERVAL (${expression(node.expr, scope)}) ${unit.toUpperCase()})`;
  }

  function extract(node: AstNode, scope: Scope): string {
    const args = isNode(node.args) ? node.args : {};
    const field = String(args.field ?? '').toLowerCase();
    // `EXTRACT(HOUR FROM TIMESTAMP '...')`: the parser keeps the literal's type beside it.
    const literalType = typeof args.cast_type === 'string' ? CAST_TYPES[args.cast_type.toUpperCase()] : undefined;
    const source = literalType ? `CAST(${expression(args.source, scope)} AS ${literalType})` : expression(args.source, scope);
    switch (field) {
      case 'dayofweek':
        // BigQuery counts Sunday as 1; DuckDB as 0.
        return `(dayofweek(${source}) + 1)`;
      case 'dayofyear':
        return `dayofyear(${source})`;
      case 'date':
        return `CAST(${source} AS DATE)`;
      case 'year':
      case 'quarter':
      case 'month':
      case 'day':
      case 'hour':
      case 'minute':
      case 'second':
      case 'millisecond':
      case 'microsecond':
        return `CAST(extract(${field} FROM ${source}) AS BIGINT)`;
      default:
        return unsupported(`EXTRACT(${field.toUpperCase()} ...)`, node);
    }
  }

  function keywordOf(node: AstNode): string | undefined {
    if (node.type !== 'column_ref' || node.table) return undefined;
    return identifierText(node.column)?.toLowerCase();
  }

  function functionCall(node: AstNode, scope: Scope): string {
    const name = functionName(node);
    if (name === 'exists') {
      const [sub] = functionArgs(node);
      if (!sub || !isNode(sub.ast)) return unsupported('EXISTS without a subquery', node);
      return `EXISTS (${query(sub.ast, scope)})`;
    }
    const argNodes = functionArgs(node);
    if (WINDOW_FUNCTIONS.has(name)) {
      if (!node.over) return unsupported(`${name.toUpperCase()} without OVER`, node);
      return `${WINDOW_FUNCTIONS.get(name)}(${argNodes.map((arg) => expression(arg, scope)).join(', ')})${over(node.over, scope)}`;
    }
    const emit = FUNCTIONS.get(name);
    if (!emit) return unsupported(`function ${name.toUpperCase()}`, node);
    // Date parts (MINUTE, DAY) parse as bare column references; emitters that take one read `keywords`.
    const keywords = argNodes.map(keywordOf);
    const args = argNodes.map((arg) => expression(arg, scope));
    const sql = emit({ name, args, keywords, location: locationOf(node), now: options.now });
    return sql + (node.over ? over(node.over, scope) : '');
  }

  function aggregate(node: AstNode, scope: Scope): string {
    const name = String(node.name).toLowerCase();
    const duckName = AGGREGATES.get(name);
    if (!duckName) return unsupported(`aggregate ${name.toUpperCase()}`, node);
    const args = isNode(node.args) ? node.args : {};
    if (args.orderby) unsupported(`${name.toUpperCase()} with ORDER BY`, node);
    const distinct = args.distinct ? 'DISTINCT ' : '';
    const inner = isNode(args.expr) ? expression(args.expr, scope) : expression(args, scope);
    return `${duckName}(${distinct}${inner})` + (node.over ? over(node.over, scope) : '');
  }

  function over(value: unknown, scope: Scope): string {
    const spec = isNode(value) && isNode(value.as_window_specification) ? value.as_window_specification.window_specification : undefined;
    if (!isNode(spec)) return unsupported('named window (write OVER (...))');
    if (spec.window_frame_clause) unsupported('window frame clause');
    const partition = Array.isArray(spec.partitionby)
      ? 'PARTITION BY ' + spec.partitionby.filter(isNode).map((item) => expression(item.expr, scope)).join(', ')
      : '';
    return ` OVER (${[partition, orderBy(spec.orderby, scope).trim()].filter(Boolean).join(' ')})`;
  }

  return query(statement, undefined, options.rowCap);
}
