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

export interface TranslateOptions {
  /** The DuckDB relation (already quoted) a logical source name maps to. */
  relationFor(source: string): string | undefined;
  /** SQL for a bound parameter, e.g. `$project`. */
  parameter(name: string): string;
  /** SQL that yields the execution time, bound once per query. */
  now: () => string;
  /** At most this many rows from the outermost query. */
  rowCap?: number;
}

/** Names visible while translating one SELECT: CTEs, and UNNEST aliases (which DuckDB sees as columns). */
interface Scope {
  ctes: ReadonlySet<string>;
  unnestAliases: ReadonlySet<string>;
  parent: Scope | undefined;
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

/** The DuckDB name of the column that holds an UNNEST alias's element. */
function unnestRelation(alias: string): string {
  return quoteIdentifier(`_u_${alias}`);
}

export function translateToDuckDb(statement: AstNode, options: TranslateOptions): string {
  const unsupported = (what: string, node?: AstNode, location?: SqlLocation): never => {
    throw new UnsupportedConstruct(what, (node && locationOf(node)) ?? location);
  };

  function isUnnestAlias(name: string, scope: Scope | undefined): boolean {
    for (let current = scope; current; current = current.parent) {
      if (current.unnestAliases.has(name.toLowerCase())) return true;
    }
    return false;
  }

  function isCte(name: string, scope: Scope | undefined): boolean {
    for (let current = scope; current; current = current.parent) {
      if (current.ctes.has(name.toLowerCase())) return true;
    }
    return false;
  }

  function query(select: AstNode, parent: Scope | undefined, rowCap?: number): string {
    const members = setOperationMembers(select);
    const ctes = withClauses(select);
    const scope: Scope = { ctes: new Set(ctes.map((cte) => cte.name.toLowerCase())), unnestAliases: new Set(), parent };
    // CTEs see the ones defined before them (and themselves are not recursive).
    const withSql = ctes.length
      ? 'WITH ' + ctes.map((cte) => `${quoteIdentifier(cte.name)} AS (${query(cte.stmt, scope)})`).join(', ') + ' '
      : '';
    // For a set operation the parser hangs ORDER BY / LIMIT on the last member; they apply to the whole.
    const last = members[members.length - 1]!;
    const body = members
      .map((member, index) => {
        const core = selectCore(member, scope);
        if (index === 0) return core;
        const operation = String(members[index - 1]!.set_op ?? '').toLowerCase();
        const duckOperation = SET_OPERATIONS[operation] ?? unsupported(`set operation ${operation.toUpperCase() || 'UNION'} (write UNION ALL or UNION DISTINCT)`, member);
        return `${duckOperation} ${core}`;
      })
      .join(' ');
    const lastScope = members.length > 1 ? scope : scopeOfSelect(last, scope);
    return withSql + body + orderBy(last.orderby, lastScope) + limit(last.limit, rowCap, last);
  }

  function scopeOfSelect(select: AstNode, parent: Scope): Scope {
    const aliases = new Set<string>();
    if (Array.isArray(select.from)) {
      for (const item of select.from.filter(isNode)) {
        if (item.type === 'unnest' && typeof item.as === 'string') aliases.add(item.as.toLowerCase());
      }
    }
    return { ctes: new Set(), unnestAliases: aliases, parent };
  }

  function selectCore(select: AstNode, parent: Scope): string {
    if (select.type !== 'select') unsupported(`${String(select.type).toUpperCase()} statement`, select);
    const scope = scopeOfSelect(select, parent);
    const parts = ['SELECT'];
    if (select.distinct) parts.push('DISTINCT');
    if (!Array.isArray(select.columns)) unsupported('SELECT without columns', select);
    parts.push((select.columns as unknown[]).filter(isNode).map((column) => selectItem(column, scope)).join(', '));
    if (Array.isArray(select.from) && select.from.length) parts.push('FROM ' + fromList(select.from.filter(isNode), scope));
    if (select.where) parts.push('WHERE ' + expression(select.where, scope));
    const groupBy = groupByItems(select.groupby);
    if (groupBy.length) parts.push('GROUP BY ' + groupBy.map((item) => expression(item, scope)).join(', '));
    if (select.having) parts.push('HAVING ' + expression(select.having, scope));
    if (select.qualify) unsupported('QUALIFY', select);
    if (select.window) unsupported('WINDOW clause', select);
    return parts.join(' ');
  }

  function groupByItems(groupby: unknown): unknown[] {
    if (Array.isArray(groupby)) return groupby;
    if (isNode(groupby) && Array.isArray(groupby.columns)) return groupby.columns;
    return [];
  }

  function selectItem(column: AstNode, scope: Scope): string {
    const expr = column.expr;
    if (column.type === 'except' && isNode(expr)) {
      const excluded = Array.isArray(column.expr_list) ? column.expr_list.filter(isNode) : [];
      const names = excluded.map((item) => (isNode(item.expr) ? expression(item.expr, scope) : unsupported('EXCEPT item', item)));
      return `${expression(expr, scope)} EXCLUDE (${names.join(', ')})`;
    }
    if (!isNode(expr)) return unsupported('select item', column);
    const alias = identifierText(column.as);
    return expression(expr, scope) + (alias ? ` AS ${quoteIdentifier(alias)}` : '');
  }

  function fromList(items: AstNode[], scope: Scope): string {
    return items
      .map((item, index) => {
        const relation = fromItem(item, scope);
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
      .join(' ');
  }

  function fromItem(item: AstNode, scope: Scope): string {
    const alias = identifierText(item.as);
    if (item.type === 'unnest') {
      if (!alias) return unsupported('UNNEST in FROM without an alias (write UNNEST(x) AS name)', item);
      if (!isNode(item.expr)) return unsupported('UNNEST argument', item);
      return `UNNEST(${expression(item.expr, scope)}) AS ${unnestRelation(alias)}(${quoteIdentifier(alias)})`;
    }
    const aliasSql = alias ? ` AS ${quoteIdentifier(alias)}` : '';
    if (isNode(item.expr)) {
      const sub = isNode(item.expr.ast) ? item.expr.ast : undefined;
      if (!sub) return unsupported('table expression in FROM', item);
      return `(${query(sub, scope)})${aliasSql}`;
    }
    const table = identifierText(item.table);
    if (table === undefined) return unsupported('FROM item', item);
    const db = identifierText(item.db);
    const name = db ? `${db}.${table}` : table;
    if (!db && isCte(name, scope)) return quoteIdentifier(name) + aliasSql;
    const relation = options.relationFor(name);
    if (relation === undefined) return unsupported(`table \`${name}\` (neither a known source nor a CTE)`, item);
    // Without an explicit alias BigQuery lets `t.col` qualify by the table's last name part.
    return relation + (alias ? aliasSql : ` AS ${quoteIdentifier(name)}`);
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
    const values = isNode(node) && Array.isArray(node.value) ? node.value.filter(isNode) : [];
    let count: string | undefined;
    let offset: string | undefined;
    if (values.length === 1) count = literalInteger(values[0]!, owner);
    if (values.length === 2 && isNode(node) && node.seperator === 'offset') {
      count = literalInteger(values[0]!, owner);
      offset = literalInteger(values[1]!, owner);
    }
    if (values.length > 2 || (values.length === 2 && !offset)) unsupported('LIMIT form (write LIMIT n OFFSET m)', owner);
    if (rowCap !== undefined && (count === undefined || Number(count) > rowCap)) count = String(rowCap);
    return (count === undefined ? '' : ` LIMIT ${count}`) + (offset === undefined ? '' : ` OFFSET ${offset}`);
  }

  function literalInteger(node: AstNode, owner: AstNode): string {
    if (node.type === 'number' && /^\d+$/.test(String(node.value))) return String(node.value);
    return unsupported('LIMIT/OFFSET other than a whole number', owner);
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
      return subscripts(expression(column.expr, scope), column.offset.filter(isNode), scope);
    }
    const name = identifierText(column);
    if (name === undefined) return unsupported('column reference', node);
    const fields = Array.isArray(node.subFields) ? node.subFields.map((field) => quoteIdentifier(String(field))) : [];
    const columnSql = name === '*' ? '*' : quoteIdentifier(name);
    let head: string[];
    if (table === undefined || table === null) {
      head = name !== '*' && isUnnestAlias(name, scope) ? [unnestRelation(name), columnSql] : [columnSql];
    } else if (isUnnestAlias(table, scope)) {
      head = [unnestRelation(table), quoteIdentifier(table), columnSql];
    } else {
      head = [quoteIdentifier(table), columnSql];
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
    const escape = operator === 'LIKE' || operator === 'NOT LIKE' ? " ESCAPE '\\'" : '';
    return `(${left} ${operator} ${expression(right, scope)}${escape})`;
  }

  function unary(node: AstNode, scope: Scope): string {
    const operator = String(node.operator).toUpperCase();
    if (operator === 'NOT') return `(NOT ${expression(node.expr, scope)})`;
    if (operator === '-' || operator === '+') return `(${operator}${expression(node.expr, scope)})`;
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
