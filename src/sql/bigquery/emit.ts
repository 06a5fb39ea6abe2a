/**
 * BigQuery SQL written back from node-sql-parser's AST, with sources mapped to their tables.
 *
 * Not node-sql-parser's `sqlify`: it does not round-trip faithfully (it drops the backticks of
 * `t.\`from\`` and `\`my col\``, writes "x'y" as 'x'y' and r'a"b' as r"a"b"), and the text
 * BigQuery runs must mean exactly what was checked on the AST, sandbox SQL included.
 *
 * The language is the translator's (src/sql/duckdb/translate.ts): the same constructs and the
 * same functions, so an endpoint means the same on both backends and anything else is an
 * UnsupportedConstruct at load. A FROM item is a source, a CTE in scope, a subquery or an
 * UNNEST; nothing else can be named, so no query reaches another table.
 */
import { functionArgs, functionName, identifierText, isNode, locationOf, setOperationMembers, withClauses } from '../ast.js';
import { AGGREGATES, FUNCTIONS, WINDOW_FUNCTIONS } from '../duckdb/functions.js';
import { decodeBigQueryString } from '../duckdb/literals.js';
import { UnsupportedConstruct } from '../duckdb/unsupported.js';
import type { AstNode } from '../parse.js';
import { quoteIdentifier, quoteString } from './quote.js';
import { limitClause } from '../limit-clause.js';

export interface EmitOptions {
  /** The SQL of a source's table, or undefined for a name that is no source. */
  tableFor(source: string): string | undefined;
  /** At most this many rows from the outermost query. */
  rowCap?: number;
}

export interface EmittedSql {
  sql: string;
  /** The @parameters the SQL references, in order of first use. */
  parameters: string[];
}

/** CTE names visible to a query (BigQuery matches them case-insensitively). */
interface Scope {
  ctes: ReadonlySet<string>;
  parent: Scope | undefined;
}

/** Canonical BigQuery names of the cast targets the translator supports. */
const CAST_TYPES: Record<string, string> = {
  STRING: 'STRING',
  INT64: 'INT64',
  INTEGER: 'INT64',
  INT: 'INT64',
  BIGINT: 'INT64',
  FLOAT64: 'FLOAT64',
  NUMERIC: 'NUMERIC',
  BIGNUMERIC: 'BIGNUMERIC',
  BOOL: 'BOOL',
  BOOLEAN: 'BOOL',
  TIMESTAMP: 'TIMESTAMP',
  DATETIME: 'DATETIME',
  DATE: 'DATE',
  TIME: 'TIME',
};

const DATE_PARTS = new Set(['microsecond', 'millisecond', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year']);

/** Functions whose second argument is a date part keyword, not an expression. */
const TRUNCATIONS = new Set(['timestamp_trunc', 'datetime_trunc']);

const EXTRACT_FIELDS = new Set(['dayofweek', 'dayofyear', 'date', 'year', 'quarter', 'month', 'day', 'hour', 'minute', 'second', 'millisecond', 'microsecond']);

const BINARY_OPERATORS = new Set([
  'AND', 'OR', '=', '!=', '<>', '<', '>', '<=', '>=', '+', '-', '*', '/', '||',
  'LIKE', 'NOT LIKE', 'IS', 'IS NOT', 'IN', 'NOT IN', 'BETWEEN', 'NOT BETWEEN',
]);

const JOINS = new Set(['JOIN', 'INNER JOIN', 'LEFT JOIN', 'LEFT OUTER JOIN', 'RIGHT JOIN', 'RIGHT OUTER JOIN', 'FULL JOIN', 'FULL OUTER JOIN', 'CROSS JOIN']);

const SET_OPERATIONS: Record<string, string> = {
  'union all': 'UNION ALL',
  'union distinct': 'UNION DISTINCT',
  'intersect distinct': 'INTERSECT DISTINCT',
  'except distinct': 'EXCEPT DISTINCT',
};

/** SELECT clauses outside the supported language, by AST key. */
const UNSUPPORTED_CLAUSES: Record<string, string> = {
  qualify: 'QUALIFY',
  window: 'WINDOW clause',
  for_sys_time_as_of: 'FOR SYSTEM_TIME AS OF',
  as_struct_val: 'SELECT AS STRUCT / AS VALUE',
  _orderby: 'ORDER BY after a parenthesised query',
  _limit: 'LIMIT after a parenthesised query',
};

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NUMBER = /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

export function emitBigQuery(statement: AstNode, options: EmitOptions): EmittedSql {
  const parameters = new Set<string>();
  const unsupported = (what: string, node?: AstNode): never => {
    throw new UnsupportedConstruct(what, node && locationOf(node));
  };

  function isCte(name: string, scope: Scope | undefined): boolean {
    for (let current = scope; current; current = current.parent) {
      if (current.ctes.has(name.toLowerCase())) return true;
    }
    return false;
  }

  function query(select: AstNode, parent: Scope | undefined, rowCap?: number): string {
    const members = setOperationMembers(select);
    const ctes = withClauses(select);
    const scope: Scope = { ctes: new Set(ctes.map((cte) => cte.name.toLowerCase())), parent };
    // A CTE is named as written (the parser reads no quoted CTE name, so it was a plain identifier).
    const withSql = ctes.length
      ? 'WITH ' + ctes.map((cte) => `${IDENTIFIER.test(cte.name) ? cte.name : quoteIdentifier(cte.name)} AS (${query(cte.stmt, scope)})`).join(', ') + ' '
      : '';
    // The parser hangs a set operation's ORDER BY / LIMIT on its last member; they apply to the whole.
    const last = members[members.length - 1]!;
    const body = members
      .map((member, index) => {
        const ownsClauses = member !== last || (members.length > 1 && member.parentheses_symbol);
        if (ownsClauses && (member.orderby || member.limit)) unsupported('ORDER BY or LIMIT inside one member of a set operation', member);
        const core = selectCore(member, scope);
        if (index === 0) return core;
        const operation = String(members[index - 1]!.set_op ?? '').toLowerCase();
        const keyword = SET_OPERATIONS[operation] ?? unsupported(`set operation ${operation.toUpperCase() || 'UNION'} (write UNION ALL or UNION DISTINCT)`, member);
        return `${keyword} ${core}`;
      })
      .join(' ');
    return withSql + body + orderBy(last.orderby, scope) + limit(last.limit, rowCap, last);
  }

  function selectCore(select: AstNode, scope: Scope): string {
    if (select.type !== 'select') unsupported(`${String(select.type).toUpperCase()} statement`, select);
    for (const [key, what] of Object.entries(UNSUPPORTED_CLAUSES)) if (select[key]) unsupported(what, select);
    const parts = ['SELECT'];
    // `SELECT ALL` is the default; the parser records it in the same field as DISTINCT.
    const distinct = String(select.distinct ?? '').toUpperCase();
    if (distinct === 'DISTINCT') parts.push('DISTINCT');
    else if (distinct !== '' && distinct !== 'ALL') unsupported(`SELECT ${distinct}`, select);
    if (!Array.isArray(select.columns)) unsupported('SELECT without columns', select);
    parts.push((select.columns as unknown[]).filter(isNode).map((column) => selectItem(column, scope)).join(', '));
    const from = Array.isArray(select.from) ? select.from.filter(isNode) : [];
    if (from.length) parts.push('FROM ' + fromList(from, scope));
    if (select.where) parts.push('WHERE ' + expression(select.where, scope));
    const groupBy = groupByItems(select.groupby);
    if (groupBy.length) parts.push('GROUP BY ' + groupBy.map((item) => expression(item, scope)).join(', '));
    if (select.having) parts.push('HAVING ' + expression(select.having, scope));
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
      const names = excluded.map((item) => {
        const name = isNode(item.expr) && item.expr.type === 'column_ref' && !item.expr.table ? identifierText(item.expr.column) : undefined;
        return name ? quoteIdentifier(name) : unsupported('EXCEPT item other than a column name', item);
      });
      return `${expression(expr, scope)} EXCEPT (${names.join(', ')})`;
    }
    if (column.type === 'replace' && isNode(expr)) {
      const replacements = Array.isArray(column.expr_list) ? column.expr_list.filter(isNode) : [];
      const items = replacements.map((item) => `${expression(item.expr, scope)} AS ${quoteIdentifier(identifierText(item.as) ?? unsupported('REPLACE item without AS', item))}`);
      return `${expression(expr, scope)} REPLACE (${items.join(', ')})`;
    }
    if (column.type !== undefined && column.type !== null) unsupported(`select item ${String(column.type).toUpperCase()}`, column);
    if (!isNode(expr)) return unsupported('select item', column);
    const alias = identifierText(column.as);
    return expression(expr, scope) + (alias ? ` AS ${quoteIdentifier(alias)}` : '');
  }

  function fromList(items: AstNode[], scope: Scope): string {
    let sql = '';
    items.forEach((item, index) => {
      const relation = fromItem(item, scope);
      if (index === 0) {
        sql = relation;
        return;
      }
      const join = typeof item.join === 'string' ? item.join.toUpperCase() : undefined;
      if (join === undefined) {
        sql += `, ${relation}`;
        return;
      }
      if (!JOINS.has(join)) unsupported(join, item);
      const on = item.on ? ` ON ${expression(item.on, scope)}` : '';
      const using = Array.isArray(item.using)
        ? ` USING (${item.using.map((name) => quoteIdentifier(identifierText(name) ?? unsupported('USING column', item))).join(', ')})`
        : '';
      sql += ` ${join} ${relation}${on}${using}`;
    });
    return sql;
  }

  function fromItem(item: AstNode, scope: Scope): string {
    const alias = identifierText(item.as);
    const aliasSql = alias ? ` AS ${quoteIdentifier(alias)}` : '';
    if (item.type === 'unnest') {
      if (!isNode(item.expr)) return unsupported('UNNEST argument', item);
      const offsetAlias = isNode(item.with_offset) ? identifierText(item.with_offset.as) : undefined;
      const offset = isNode(item.with_offset) ? ` WITH OFFSET${offsetAlias ? ` AS ${quoteIdentifier(offsetAlias)}` : ''}` : '';
      return `UNNEST(${expression(item.expr, scope)})${aliasSql}${offset}`;
    }
    if (isNode(item.expr)) {
      const sub = isNode(item.expr.ast) ? item.expr.ast : undefined;
      if (!sub) return unsupported('table expression in FROM', item);
      return `(${query(sub, scope)})${aliasSql}`;
    }
    const name = tableName(item);
    if (name === undefined) return unsupported('FROM item', item);
    if (!item.db && isCte(name, scope)) return quoteIdentifier(name) + aliasSql;
    const table = options.tableFor(name);
    if (table === undefined) return unsupported(`table \`${name}\` (neither a known source nor a CTE)`, item);
    // Unaliased, BigQuery names a table by its path's last part; keep the one the source name gives.
    return `${table} AS ${quoteIdentifier(alias ?? name.slice(name.lastIndexOf('.') + 1))}`;
  }

  function tableName(item: AstNode): string | undefined {
    const table = identifierText(item.table);
    if (table === undefined) return undefined;
    const path = [identifierText(item.db), identifierText(item.schema), table].filter((part): part is string => Boolean(part));
    return path.join('.');
  }

  function orderBy(items: unknown, scope: Scope): string {
    if (!Array.isArray(items) || items.length === 0) return '';
    const parts = items.filter(isNode).map((item) => {
      if (item.nulls) unsupported('NULLS FIRST / NULLS LAST', item);
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
        return parameter(node);
      case 'number':
        return number(node);
      case 'single_quote_string':
      case 'double_quote_string':
      case 'string':
        return quoteString(decodeBigQueryString(String(node.value)));
      case 'regex_string':
        // A raw string's value is its content already.
        return quoteString(String(node.value));
      case 'bool':
        return node.value ? 'TRUE' : 'FALSE';
      case 'null':
        return 'NULL';
      case 'date':
      case 'timestamp':
      case 'datetime':
        return `${String(node.type).toUpperCase()} ${quoteString(String(node.value))}`;
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

  function parameter(node: AstNode): string {
    const name = String(node.value);
    if (!IDENTIFIER.test(name)) return unsupported(`parameter name @${name}`, node);
    parameters.add(name);
    return `@${name}`;
  }

  function number(node: AstNode): string {
    const text = String(node.value);
    if (!NUMBER.test(text)) return unsupported(`number ${text}`, node);
    // Parenthesised so that a negative literal after a minus sign never reads as a `--` comment.
    return text.startsWith('-') ? `(${text})` : text;
  }

  function columnRef(node: AstNode, scope: Scope): string {
    if (node.db || node.schema) return unsupported('column reference with more than a table qualifier', node);
    const column = node.column;
    if (isNode(column) && Array.isArray(column.offset) && column.offset.length > 0) {
      return subscripts(expression(column.expr, scope), column.offset.filter(isNode), scope) + fieldSuffix(column.suffix, node);
    }
    if (isNode(column) && column.suffix) return unsupported('field access after a non-subscript', node);
    const name = identifierText(column);
    if (name === undefined) return unsupported('column reference', node);
    const table = identifierText(node.table);
    const fields = Array.isArray(node.subFields) ? node.subFields.map((field) => quoteIdentifier(String(field))) : [];
    return [...(table ? [quoteIdentifier(table)] : []), name === '*' ? '*' : quoteIdentifier(name), ...fields].join('.');
  }

  /** `.field` after a subscript (`arr[OFFSET(0)].x`), which the parser keeps as raw text. */
  function fieldSuffix(suffix: unknown, node: AstNode): string {
    if (suffix === undefined || suffix === null || suffix === '') return '';
    const fields = String(suffix).split('.');
    if (fields.shift() !== '' || !fields.every((field) => IDENTIFIER.test(field))) return unsupported(`field access ${String(suffix)}`, node);
    return fields.map((field) => `.${quoteIdentifier(field)}`).join('');
  }

  function subscripts(base: string, offsets: AstNode[], scope: Scope): string {
    return offsets.reduce((sql, offset) => {
      const kind = String(offset.name ?? '').toUpperCase();
      if (!['OFFSET', 'SAFE_OFFSET', 'ORDINAL', 'SAFE_ORDINAL'].includes(kind)) {
        return unsupported(`array subscript ${kind || '[n]'} (write [OFFSET(n)] or [ORDINAL(n)])`, offset);
      }
      return `${sql}[${kind}(${expression(offset.value, scope)})]`;
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
      return `(${left} ${operator} UNNEST(${expression(right.expr, scope)}))`;
    }
    if ((operator === 'IN' || operator === 'NOT IN') && isNode(right) && right.type === 'expr_list') {
      const items = Array.isArray(right.value) ? right.value : [];
      const only = items.length === 1 && isNode(items[0]) && isNode(items[0].ast) ? (items[0].ast as AstNode) : undefined;
      const list = only ? `(${query(only, scope)})` : `(${items.map((item) => expression(item, scope)).join(', ')})`;
      return `(${left} ${operator} ${list})`;
    }
    return `(${left} ${operator} ${expression(right, scope)})`;
  }

  function unary(node: AstNode, scope: Scope): string {
    const operator = String(node.operator).toUpperCase();
    if (operator === 'NOT') return `(NOT ${expression(node.expr, scope)})`;
    if (operator === 'NOT EXISTS' && isNode(node.expr) && isNode(node.expr.ast)) return `(NOT EXISTS (${query(node.expr.ast, scope)}))`;
    // A space after the sign, so `- -1` never becomes the comment `--1`.
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
    const named = String(targets[0]?.dataType ?? '').toUpperCase();
    const type = CAST_TYPES[named];
    if (targets.length !== 1 || type === undefined) {
      return unsupported(`CAST to ${named || 'this type'} (supported: ${Object.keys(CAST_TYPES).join(', ')})`, node);
    }
    const keyword = String(node.keyword).toLowerCase() === 'safe_cast' ? 'SAFE_CAST' : 'CAST';
    return `${keyword}(${expression(node.expr, scope)} AS ${type})`;
  }

  function interval(node: AstNode, scope: Scope): string {
    const unit = String(node.unit ?? '').toLowerCase();
    if (!DATE_PARTS.has(unit)) return unsupported(`INTERVAL unit ${unit.toUpperCase()}`, node);
    return `INTERVAL ${expression(node.expr, scope)} ${unit.toUpperCase()}`;
  }

  function extract(node: AstNode, scope: Scope): string {
    const args = isNode(node.args) ? node.args : {};
    const field = String(args.field ?? '').toLowerCase();
    if (!EXTRACT_FIELDS.has(field)) return unsupported(`EXTRACT(${field.toUpperCase()} ...)`, node);
    // `EXTRACT(HOUR FROM TIMESTAMP '...')`: the parser keeps the literal's type beside its text.
    const literalType = typeof args.cast_type === 'string' ? CAST_TYPES[args.cast_type.toUpperCase()] : undefined;
    const source = literalType ? `CAST(${expression(args.source, scope)} AS ${literalType})` : expression(args.source, scope);
    return `EXTRACT(${field.toUpperCase()} FROM ${source})`;
  }

  function functionCall(node: AstNode, scope: Scope): string {
    const name = functionName(node);
    const argNodes = functionArgs(node);
    if (name === 'exists') {
      const sub = argNodes[0];
      if (argNodes.length !== 1 || !isNode(sub?.ast)) return unsupported('EXISTS without a subquery', node);
      return `EXISTS (${query(sub.ast, scope)})`;
    }
    if (WINDOW_FUNCTIONS.has(name) && !node.over) return unsupported(`${name.toUpperCase()} without OVER`, node);
    if (!WINDOW_FUNCTIONS.has(name) && !FUNCTIONS.has(name)) return unsupported(`function ${name.toUpperCase()}`, node);
    const args = argNodes.map((arg, index) => (TRUNCATIONS.has(name) && index === 1 ? datePart(arg, name) : expression(arg, scope)));
    return `${name.toUpperCase()}(${args.join(', ')})` + (node.over ? over(node.over, scope) : '');
  }

  /** A date part (`MINUTE`) parses as a column reference; it is written back as the keyword. */
  function datePart(arg: AstNode, name: string): string {
    const part = arg.type === 'column_ref' && !arg.table ? identifierText(arg.column)?.toLowerCase() : undefined;
    if (part === undefined || !DATE_PARTS.has(part)) {
      return unsupported(`${name.toUpperCase()} with this date part (supported: ${[...DATE_PARTS].join(', ').toUpperCase()})`, arg);
    }
    return part.toUpperCase();
  }

  function aggregate(node: AstNode, scope: Scope): string {
    const name = String(node.name).toLowerCase();
    if (!AGGREGATES.has(name)) return unsupported(`aggregate ${name.toUpperCase()}`, node);
    const args = isNode(node.args) ? node.args : {};
    if (args.orderby) unsupported(`${name.toUpperCase()} with ORDER BY`, node);
    const distinct = args.distinct ? 'DISTINCT ' : '';
    const inner = isNode(args.expr) ? expression(args.expr, scope) : expression(args, scope);
    return `${name.toUpperCase()}(${distinct}${inner})` + (node.over ? over(node.over, scope) : '');
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

  const sql = query(statement, undefined, options.rowCap);
  return { sql, parameters: [...parameters] };
}
