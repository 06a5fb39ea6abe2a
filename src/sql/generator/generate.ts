/**
 * The one SQL generator: the query tree written as SQL text for a dialect. The row cap is applied
 * first (the same for every backend), then the dialect's rewrites, then one walk prints each node
 * as the dialect's transform says or, without one, as written here. Functions, cast types, date
 * parts and the other entries of the language table are written from that table.
 *
 * Anything the walk has no rule for is refused by `refuse`, the one place that does, naming the
 * construct and the backend.
 *
 * A table name is written as what it names where it stands (analyse/table-scopes.ts, BigQuery's
 * WITH scoping): a CTE in scope or a source. A caller's sandbox query is generated sealed
 * (sealed.ts): each CTE under a generated name, a source only inside the endpoint's CTEs.
 */
import { checkCteExpansion } from '../analyse/cte-expansion.js';
import { staticType } from '../analyse/static-type.js';
import { cteKey, tableReads, type TableRead } from '../analyse/table-scopes.js';
import { checkUnpivotTypes } from '../analyse/unpivot-types.js';
import { InvalidQuery } from '../parse/errors.js';
import {
  allowsPart,
  CAST_FORMAT,
  CAST_KEYWORDS,
  CAST_TYPES,
  EXTRACT_PARTS,
  extractKey,
  FUNCTIONS,
  int64InRange,
  INTERVAL_UNITS,
  numberLiteral,
  OPERATOR_RENDERINGS,
  REFUSED_FUNCTIONS,
  resolveFunction,
  SAFE_CALLS,
  SET_BY_NAME_MODES,
  SET_OPERATORS,
  TYPE_LOOKUP,
  type CallContext,
} from '../language.js';
import type { Call, DerivedParameter, Expr, FromItem, GroupingSpec, Literal, OrderItem, Query, QueryBody, Select, SelectItem, SetByName, SetOperation, TableRef, TypeName, WindowSpec } from '../parse/tree.js';
import type { CompiledSql, Dialect, Printer } from './dialect.js';
import { applyRowCap } from './row-cap.js';
import { sealedNames, UnsealedRead } from './sealed.js';
import { UnsupportedConstruct } from './unsupported.js';

export interface GenerateOptions {
  /** At most this many rows from the outermost query. */
  rowCap?: number;
  /**
   * A caller's sandbox query over an endpoint's CTEs (sealed.ts): every CTE under a generated
   * name, and a source table only inside the endpoint's own CTEs.
   */
  sealed?: boolean;
}

const NUMBER = /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const WHOLE_NUMBER = /^\d+$/;

function typeOf(expr: Expr) {
  return staticType(expr, TYPE_LOOKUP);
}

export function generate(query: Query, dialect: Dialect, options: GenerateOptions = {}): CompiledSql {
  // DuckDB plans each WITH table again where it is read: refused before its planner sees it.
  checkCteExpansion(query);
  // An UNPIVOT's columns of different types are BigQuery's error, where its UNION ALL would coerce them.
  const unpivot = checkUnpivotTypes(query, TYPE_LOOKUP);
  if (unpivot !== undefined) throw new UnsupportedConstruct(unpivot.what, dialect.name, unpivot.loc);
  let tree = options.rowCap === undefined ? query : applyRowCap(query, options.rowCap);
  for (const rewrite of dialect.rewrites) tree = rewrite(tree);
  const parameters = new Set<string>();
  const derived: Record<string, DerivedParameter> = {};
  /** What each table name of the tree to print names, resolved once, as BigQuery scopes names. */
  const reads = new Map<TableRef, TableRead>(tableReads(tree).map((read) => [read.table, read]));
  const sealed = options.sealed === true ? sealedNames() : undefined;
  const transforms = dialect.transforms;

  const printer: Printer = {
    dialect,
    expr: (expr) => printExpr(expr),
    query: (node) => printQuery(node),
    typeName: (type) => typeName(type, {}),
    identifier,
    string: (value) => dialect.quoteString(value),
    refuse,
  };

  function refuse(what: string, node?: { loc?: Expr['loc'] }): never {
    throw new UnsupportedConstruct(what, dialect.name, node?.loc);
  }

  function identifier(name: string): string {
    if (name === '' || name.includes('\u0000')) refuse('an empty identifier, or one holding a NUL character');
    return dialect.quoteIdentifier(name);
  }

  function printQuery(node: Query): string {
    const names = new Set<string>();
    const ctes = node.with.map((cte) => {
      // BigQuery refuses two CTEs of one name in one WITH; sealed, both would be written, under two names.
      if (names.has(cteKey(cte.name))) throw new InvalidQuery(`Duplicate alias ${cte.name} for WITH subquery`, cte.loc);
      names.add(cteKey(cte.name));
      const body = printQuery(cte.query);
      return `${dialect.cteName(sealed ? sealed.define(cte) : cte.name)} AS (${body})`;
    });
    const withSql = ctes.length ? `WITH ${ctes.join(', ')} ` : '';
    return withSql + printBody(node.body) + orderBy(node.orderBy) + limit(node);
  }

  function printBody(body: QueryBody): string {
    switch (body.kind) {
      case 'select':
        return printSelect(body);
      case 'query':
        return `(${printQuery(body)})`;
      case 'set':
        // GoogleSQL has no precedence between set operations (DuckDB's INTERSECT binds tighter, the
        // rest left to right): `a UNION ALL b EXCEPT DISTINCT c` is BigQuery's syntax error.
        if (body.operators.some((operator) => operator !== body.operators[0])) {
          throw new InvalidQuery('Syntax error: Different set operations cannot be used in the same query without using parentheses for grouping', body.loc);
        }
        return body.members
          .map((member, index) => {
            if (index === 0) return printBody(member);
            const operator = body.operators[index - 1]!;
            const keyword = SET_OPERATORS[operator]?.[dialect.name] ?? refuse(`set operation ${operator}`, body);
            return `${body.byName ? byName(keyword, body.byName, body) : keyword} ${printBody(member)}`;
          })
          .join(' ');
    }
  }

  function byName(keyword: string, match: SetByName, node: SetOperation): string {
    const mode = SET_BY_NAME_MODES[match.mode]?.[dialect.name] ?? refuse(`set operation ${keyword} matching columns by name (${match.mode})`, node);
    const on = match.columns ? ` ON (${match.columns.map(identifier).join(', ')})` : '';
    return `${mode ? `${mode} ` : ''}${keyword} BY NAME${on}`;
  }

  function orderBy(items: readonly OrderItem[]): string {
    if (items.length === 0) return '';
    return ' ORDER BY ' + items.map(orderItem).join(', ');
  }

  function orderItem(item: OrderItem): string {
    return transforms.orderItem?.(item, printer) ?? plainOrderItem(item);
  }

  function plainOrderItem(item: OrderItem): string {
    return printExpr(item.expr) + (item.direction ? ` ${item.direction}` : '') + (item.nulls ? ` NULLS ${item.nulls}` : '');
  }

  function limit(node: Query): string {
    if (!node.limit) return '';
    const count = wholeNumber(node.limit.count);
    const offset = node.limit.offset && wholeNumber(node.limit.offset);
    return ` LIMIT ${count}` + (offset === undefined ? '' : ` OFFSET ${offset}`);
  }

  function wholeNumber(expr: Expr): string {
    if (expr.kind === 'unknown') return refuse(expr.what, expr);
    if (expr.kind === 'literal' && expr.type === 'int64' && typeof expr.value === 'string' && WHOLE_NUMBER.test(expr.value)) return expr.value;
    return refuse('LIMIT/OFFSET other than a whole number', expr);
  }

  function printSelect(select: Select): string {
    const parts = ['SELECT'];
    if (select.distinct) parts.push('DISTINCT');
    // A dialect without value tables has rewritten those it can answer (dialects/duckdb/rewrites/select-as.ts).
    if (select.as) parts.push(dialect.name === 'bigquery' ? `AS ${select.as.toUpperCase()}` : refuse(`SELECT AS ${select.as.toUpperCase()} other than in an expression subquery (ARRAY(...), (SELECT ...), IN, EXISTS)`, select));
    parts.push(select.items.map(selectItem).join(', '));
    if (select.from.length) parts.push('FROM ' + fromList(select.from));
    if (select.where) parts.push('WHERE ' + printExpr(select.where));
    if (select.grouping) parts.push('GROUP BY ' + groupingSpec(select.grouping, select.groupBy.map(printExpr)));
    else if (select.groupBy.length) parts.push('GROUP BY ' + select.groupBy.map(printExpr).join(', '));
    if (select.having) parts.push('HAVING ' + printExpr(select.having));
    if (select.qualify) parts.push('QUALIFY ' + printExpr(select.qualify));
    if (select.windows.length) parts.push('WINDOW ' + select.windows.map((window) => `${identifier(window.name)} AS (${windowSpec(window.spec)})`).join(', '));
    return parts.join(' ');
  }

  /** ROLLUP, CUBE and GROUPING SETS, written alike for both backends over the printed GROUP BY expressions. */
  function groupingSpec(spec: GroupingSpec, exprs: readonly string[]): string {
    const items = spec.items.map((item) => {
      if (!Array.isArray(item)) return groupingSpec(item, exprs);
      return item.length === 1 ? exprs[item[0]!]! : `(${item.map((index) => exprs[index]!).join(', ')})`;
    });
    return `${spec.kind.toUpperCase()}(${items.join(', ')})`;
  }

  function selectItem(item: SelectItem): string {
    const transformed = transforms.selectItem?.(item, printer);
    if (transformed !== undefined) return transformed;
    if (item.kind === 'item') return printExpr(item.expr) + (item.alias === undefined ? '' : ` AS ${identifier(item.alias)}`);
    const star = (item.table === undefined ? '' : `${identifier(item.table)}.`) + '*';
    const except = item.except.length ? ` EXCEPT (${item.except.map(identifier).join(', ')})` : '';
    const replace = item.replace.length ? ` REPLACE (${item.replace.map((entry) => `${printExpr(entry.expr)} AS ${identifier(entry.alias)}`).join(', ')})` : '';
    return star + except + replace;
  }

  function fromList(items: readonly FromItem[]): string {
    return items
      .map((item, index) => {
        const relation = fromItem(item);
        if (index === 0 || item.kind === 'unknown') return relation;
        const join = item.join;
        if (join === undefined || join.type === ',') return `, ${relation}`;
        // BigQuery's LEFT JOIN UNNEST needs no ON; DuckDB's (and BigQuery too) take it as ON TRUE.
        const onTrue = item.kind === 'unnest' && join.type.startsWith('LEFT') && join.using === undefined;
        const on = join.on ? ` ON ${printExpr(join.on)}` : onTrue ? ' ON TRUE' : '';
        const using = join.using ? ` USING (${join.using.map(identifier).join(', ')})` : '';
        return ` ${join.type} ${relation}${on}${using}`;
      })
      .join('');
  }

  function fromItem(item: FromItem): string {
    if (item.kind === 'unknown') {
      if (item.invalid) throw new InvalidQuery(item.what, item.loc);
      return refuse(item.what, item);
    }
    const alias = item.alias === undefined ? '' : ` AS ${identifier(item.alias)}`;
    switch (item.kind) {
      case 'table': {
        const read = reads.get(item);
        if (read?.cte && !sealed) return identifier(item.name) + alias;
        if (read?.cte) {
          // Defined before every reference to it (a CTE in scope is one written earlier); the caller's name stays the alias.
          const name = sealed?.of(read.cte) ?? refuse(`a CTE read before it is written (\`${item.name}\`)`, item);
          return `${identifier(name)} AS ${identifier(item.alias ?? item.name)}`;
        }
        if (sealed && !read?.within.some((cte) => cte.endpoint)) throw new UnsealedRead(item.name, item.loc);
        const relation = dialect.relation(item.name) ?? refuse(`table \`${item.name}\` (neither a known source nor a CTE)`, item);
        // Unaliased, BigQuery names a table by its path's last part: keep that name on every backend.
        return `${relation} AS ${identifier(item.alias ?? item.name.slice(item.name.lastIndexOf('.') + 1))}`;
      }
      case 'derived':
        return `(${printQuery(item.query)})${alias}`;
      case 'unnest': {
        const named = item.columnAlias === undefined ? alias : ` AS ${identifier(item.alias ?? refuse('UNNEST column alias without an alias', item))}(${identifier(item.columnAlias)})`;
        const offset = item.offsetAlias === undefined ? '' : ` WITH OFFSET AS ${identifier(item.offsetAlias)}`;
        return `UNNEST(${printExpr(item.array)})${named}${offset}`;
      }
      case 'join_group':
        return `(${fromList(item.items)})`;
    }
  }

  function printExpr(expr: Expr): string {
    const transform = transforms[expr.kind] as ((node: Expr, printer: Printer) => string | undefined) | undefined;
    const transformed = transform?.(expr, printer);
    if (transformed !== undefined) return transformed;
    switch (expr.kind) {
      case 'column':
        return [...(expr.table === undefined ? [] : [expr.table]), expr.name, ...expr.fields].map(identifier).join('.');
      case 'param':
        parameters.add(expr.name);
        if (expr.derived) derived[expr.name] = expr.derived;
        return dialect.parameter(expr.name);
      case 'literal':
        return literal(expr);
      case 'unary':
        // A space after a sign, so `- -1` never becomes the comment `--1`.
        return `(${expr.operator} ${printExpr(expr.operand)})`;
      case 'binary': {
        const left = printExpr(expr.left);
        const right = printExpr(expr.right);
        const render = OPERATOR_RENDERINGS[expr.operator]?.[dialect.name];
        if (render) return render({ node: expr, left, right, leftNode: expr.left, rightNode: expr.right, typeOf, refuse: (what) => refuse(what, expr) });
        return `(${left} ${expr.operator} ${right})`;
      }
      case 'between':
        return `(${printExpr(expr.operand)} ${expr.not ? 'NOT BETWEEN' : 'BETWEEN'} ${printExpr(expr.low)} AND ${printExpr(expr.high)})`;
      case 'in_list':
        return `(${printExpr(expr.operand)} ${expr.not ? 'NOT IN' : 'IN'} (${expr.list.map(printExpr).join(', ')}))`;
      case 'in_query':
        return `(${printExpr(expr.operand)} ${expr.not ? 'NOT IN' : 'IN'} (${printQuery(expr.query)}))`;
      case 'in_unnest':
        return `(${printExpr(expr.operand)} ${expr.not ? 'NOT IN' : 'IN'} UNNEST(${printExpr(expr.array)}))`;
      case 'quantified_like': {
        const patterns = expr.array === undefined ? `(${expr.list.map(printExpr).join(', ')})` : `UNNEST(${printExpr(expr.array)})`;
        return `(${printExpr(expr.operand)} ${expr.not ? 'NOT LIKE' : 'LIKE'} ${expr.quantifier} ${patterns})`;
      }
      case 'exists':
        return expr.not ? `(NOT EXISTS (${printQuery(expr.query)}))` : `EXISTS (${printQuery(expr.query)})`;
      case 'subquery':
        return `(${printQuery(expr.query)})`;
      case 'case': {
        const subject = expr.subject ? ` ${printExpr(expr.subject)}` : '';
        const branches = expr.whens.map((branch) => `WHEN ${printExpr(branch.when)} THEN ${printExpr(branch.then)}`);
        if (expr.else) branches.push(`ELSE ${printExpr(expr.else)}`);
        return `(CASE${subject} ${branches.join(' ')} END)`;
      }
      case 'cast': {
        const operand = printExpr(expr.operand);
        if (expr.format) {
          const timeZone = expr.timeZone && { node: expr.timeZone, sql: printExpr(expr.timeZone) };
          const context = { operand, node: expr.operand, safe: expr.safe, type: expr.type, typeSql: typeName(expr.type, expr), format: expr.format, formatSql: printExpr(expr.format), timeZone, typeOf };
          return CAST_FORMAT[dialect.name]({ ...context, refuse: (what) => refuse(what, expr) });
        }
        // A plain scalar target may need a conversion where DuckDB's CAST differs from BigQuery's.
        const scalar = expr.type.element || expr.type.fields || expr.type.params ? undefined : CAST_TYPES[expr.type.name];
        const convert = scalar?.convert?.[dialect.name];
        if (convert) return convert({ operand, node: expr.operand, safe: expr.safe, typeOf, refuse: (what) => refuse(what, expr) });
        return `${CAST_KEYWORDS[expr.safe ? 'safe_cast' : 'cast'][dialect.name]}(${operand} AS ${typeName(expr.type, expr)})`;
      }
      case 'interval':
        return `INTERVAL ${printExpr(expr.value)} ${intervalUnit(expr.unit, expr)}`;
      case 'extract': {
        extractPart(extractKey(expr), expr);
        const part = expr.part.toUpperCase() + (expr.weekday ? `(${expr.weekday.toUpperCase()})` : '');
        const zone = expr.timeZone ? ` AT TIME ZONE ${printExpr(expr.timeZone)}` : '';
        return `EXTRACT(${part} FROM ${printExpr(expr.source)}${zone})`;
      }
      case 'call':
        return call(expr);
      case 'date_part':
        return expr.part.toUpperCase() + (expr.weekday ? `(${expr.weekday.toUpperCase()})` : '');
      case 'star_argument':
        return '*';
      case 'subscript':
        if (expr.mode === 'INDEX') return `${printExpr(expr.array)}[${printExpr(expr.index)}]`;
        return `${printExpr(expr.array)}[${expr.mode}(${printExpr(expr.index)})]`;
      case 'field':
        return `${printExpr(expr.operand)}.${identifier(expr.name)}`;
      case 'struct': {
        if (expr.tuple) return `(${expr.fields.map((field) => printExpr(field.expr)).join(', ')})`;
        const fields = expr.fields.map((field) => printExpr(field.expr) + (field.name === undefined ? '' : ` AS ${identifier(field.name)}`));
        return `STRUCT${expr.type ? typeArguments(expr.type, expr) : ''}(${fields.join(', ')})`;
      }
      case 'array':
        return `${expr.elementType ? `ARRAY<${typeName(expr.elementType, expr)}>` : ''}[${expr.elements.map(printExpr).join(', ')}]`;
      case 'array_query':
        return `ARRAY(${printQuery(expr.query)})`;
      case 'native':
        return `${expr.name}(${expr.args.map(printExpr).join(', ')})`;
      case 'unknown':
        return refuse(expr.what, expr);
    }
  }

  function literal(node: Literal): string {
    switch (node.type) {
      case 'string':
        return dialect.quoteString(String(node.value));
      case 'int64':
      case 'float64': {
        const text = String(node.value);
        if (!NUMBER.test(text)) return refuse(`number ${text}`, node);
        if (node.type === 'int64' && !int64InRange(text)) throw new InvalidQuery(`Invalid integer literal: ${text} is beyond INT64's range`, node.loc);
        const written = numberLiteral(node.type, text, dialect.name);
        // Parenthesised, so that a negative literal after a minus sign never reads as a `--` comment.
        return written.startsWith('-') ? `(${written})` : written;
      }
      case 'bool':
        return node.value ? 'TRUE' : 'FALSE';
      case 'bytes':
        // Every byte escaped: no quoting or encoding question can arise.
        return `b'${String(node.value).replace(/../g, (byte) => `\\x${byte}`)}'`;
      case 'null':
        return 'NULL';
      case 'date':
      case 'datetime':
      case 'timestamp':
      case 'time':
      case 'numeric':
      case 'bignumeric':
        return `${typeName({ name: node.type.toUpperCase() }, node)} ${dialect.quoteString(String(node.value))}`;
      case 'json':
        return `JSON ${dialect.quoteString(String(node.value))}`;
      default:
        // Every type the parser makes is above; a tree built otherwise is refused, never printed as `undefined`.
        return refuse(`${String((node as Literal).type).toUpperCase()} literal`, node);
    }
  }

  function castType(type: string, node: { loc?: Expr['loc'] }): string {
    return CAST_TYPES[type]?.[dialect.name] ?? refuse(`CAST to ${type} (supported: ${Object.keys(CAST_TYPES).join(', ')}, ARRAY<...>, STRUCT<...>)`, node);
  }

  /** A type in the dialect's words: scalars from the language table, ARRAY and STRUCT built from theirs. */
  function typeName(type: TypeName, node: { loc?: Expr['loc'] }): string {
    const transformed = transforms.typeName?.(type, printer);
    if (transformed !== undefined) return transformed;
    if (type.name === 'ARRAY' && type.element) return `ARRAY<${typeName(type.element, node)}>`;
    if (type.name === 'STRUCT' && type.fields) return `STRUCT${typeArguments(type, node)}`;
    if (type.name === 'RANGE' && type.element) return `RANGE<${typeName(type.element, node)}>`;
    // BigQuery's parameterised types (NUMERIC(10, 2), STRING(5)) round and check on assignment in
    // ways no golden case pins down yet.
    if (type.params) return refuse(`CAST to a parameterised type (${type.name}(...))`, node);
    return castType(type.name, node);
  }

  /** `<a INT64, b STRING>` of a STRUCT type. */
  function typeArguments(type: TypeName, node: { loc?: Expr['loc'] }): string {
    return `<${(type.fields ?? []).map((field) => (field.name === undefined ? '' : `${identifier(field.name)} `) + typeName(field.type, node)).join(', ')}>`;
  }

  function intervalUnit(unit: string, node: Expr): string {
    if (!INTERVAL_UNITS.includes(unit)) refuse(`INTERVAL unit ${unit.toUpperCase()}`, node);
    return unit.toUpperCase();
  }

  function extractPart(part: string, node: Expr): string {
    if (!(part in EXTRACT_PARTS)) refuse(`EXTRACT(${part.toUpperCase()} ...)`, node);
    return part;
  }

  /** Why a name the table lacks cannot be called: a reason where there is one. */
  function unknownFunction(name: string): string {
    const bare = name.startsWith('safe.') ? name.slice('safe.'.length) : name;
    const reason = REFUSED_FUNCTIONS[bare];
    if (reason !== undefined) return reason;
    const inner = FUNCTIONS.get(bare);
    if (inner !== undefined) return `SAFE. before the ${inner.kind === 'window' ? 'analytic' : inner.kind} function ${bare.toUpperCase()} (SAFE. is supported before scalar functions)`;
    return `function ${name.toUpperCase()}`;
  }

  function call(node: Call): string {
    const upper = node.name.toUpperCase();
    const resolved = resolveFunction(node.name) ?? refuse(unknownFunction(node.name), node);
    const { spec } = resolved;
    if (spec.kind === 'window' && !node.over) refuse(`${upper} without OVER`, node);
    const [min, max] = spec.arity;
    if (node.args.length < min || node.args.length > max) {
      refuse(`${upper} takes ${min === max ? min : `${min} to ${max}`} argument(s), got ${node.args.length}`, node);
    }
    const modifiers = spec.modifiers ?? {};
    if (node.orderBy && !modifiers.orderBy) refuse(`${upper} with ORDER BY`, node);
    if (node.limit && !modifiers.limit) refuse(`${upper} with LIMIT`, node);
    if (node.ignoreNulls !== undefined && !modifiers.nulls) refuse(`${upper} with IGNORE NULLS or RESPECT NULLS`, node);
    if (node.distinct && spec.kind !== 'aggregate') refuse(`DISTINCT in ${upper}`, node);
    // HAVING MAX | MIN is written as it is only where the call is (BigQuery's own aggregates); a
    // dialect that computes it otherwise has rewritten it away (dialects/duckdb/rewrites/having-extreme.ts).
    if (node.having && (spec.kind !== 'aggregate' || node.over || spec.render.bigquery || dialect.name !== 'bigquery')) refuse(`${upper} with HAVING ${node.having.extreme}${node.over ? ' and OVER' : ''}`, node);
    const dateParts = spec.dateParts ?? [];
    const parts = node.args.map((arg, index) => (dateParts.includes(index) ? datePart(arg, upper, spec.parts ?? []) : undefined));
    const args = node.args.map(printExpr);
    const named: CallContext['named'] = {};
    for (const argument of node.named ?? []) {
      if (!spec.named?.includes(argument.name)) refuse(`${upper} with the named argument ${argument.name}`, argument.value);
      if (argument.name in named) throw new InvalidQuery(`${upper} is given the named argument ${argument.name} twice`, argument.value.loc);
      (named as Record<string, CallContext['named'][string]>)[argument.name] = { node: argument.value, sql: printExpr(argument.value) };
    }
    const orderBy = node.orderBy?.length ? ` ORDER BY ${node.orderBy.map(orderItem).join(', ')}` : undefined;
    const limit = node.limit && wholeNumber(node.limit);
    const context: CallContext = {
      name: resolved.name,
      args,
      distinct: node.distinct === true,
      orderBy,
      limit,
      ignoreNulls: node.ignoreNulls,
      argNodes: node.args,
      loc: node.loc,
      named,
      parts,
      parameter: (name) => {
        parameters.add(name);
        return dialect.parameter(name);
      },
      typeOf,
      print: printExpr,
      refuse: (what) => refuse(what, node),
      invalid: (message) => {
        throw new InvalidQuery(message, node.loc);
      },
      safe: resolved.safe,
      over: node.over && spec.placesOver ? over(node.over) : undefined,
    };
    const render = spec.render[dialect.name];
    const nulls = node.ignoreNulls === undefined ? '' : node.ignoreNulls ? ' IGNORE NULLS' : ' RESPECT NULLS';
    const namedSql = Object.entries(named).map(([name, argument]) => `${name} => ${argument.sql}`);
    const having = node.having ? ` HAVING ${node.having.extreme} ${printExpr(node.having.expr)}` : '';
    const written = `${node.distinct ? 'DISTINCT ' : ''}${[...args, ...namedSql].join(', ')}${nulls}${having}${orderBy ?? ''}${limit === undefined ? '' : ` LIMIT ${limit}`}`;
    const sql = render ? render(context) : `${resolved.name.toUpperCase()}(${written})`;
    const safe = resolved.safe ? SAFE_CALLS[dialect.name](sql, { name: resolved.name, args, argNodes: node.args, refuse: context.refuse }) : sql;
    return safe + (node.over && !(render && spec.placesOver) ? over(node.over) : '');
  }

  function datePart(arg: Expr, upper: string, allowed: readonly string[]): string {
    if (arg.kind !== 'date_part' || !allowsPart(allowed, arg.part, arg.weekday)) {
      const written = arg.kind === 'date_part' ? arg.part.toUpperCase() + (arg.weekday === undefined ? '' : `(${arg.weekday.toUpperCase()})`) : '?';
      return refuse(`${upper} with date part ${written} (supported: ${allowed.join(', ').toUpperCase()})`, arg);
    }
    return arg.weekday === undefined ? arg.part : `${arg.part}(${arg.weekday})`;
  }

  function over(spec: WindowSpec): string {
    // `OVER w` names a window of the WINDOW clause as it is.
    if (spec.name !== undefined && !spec.partitionBy.length && !spec.orderBy.length && spec.frame === undefined) return ` OVER ${identifier(spec.name)}`;
    return ` OVER (${windowSpec(spec)})`;
  }

  function windowSpec(spec: WindowSpec): string {
    if (spec.frame === 'unknown') refuse('this window frame clause (write ROWS|RANGE BETWEEN n PRECEDING|FOLLOWING, CURRENT ROW or UNBOUNDED ...)');
    const partition = spec.partitionBy.length ? 'PARTITION BY ' + spec.partitionBy.map(printExpr).join(', ') : '';
    // A RANGE of offsets measures from its one ORDER BY key: no key may be added before it.
    const ranged = spec.frame !== undefined && /^RANGE\b/i.test(spec.frame) && /\b(?!UNBOUNDED\b)\S+\s+(PRECEDING|FOLLOWING)\b/i.test(spec.frame);
    const order = spec.orderBy.length ? 'ORDER BY ' + spec.orderBy.map(ranged ? plainOrderItem : orderItem).join(', ') : '';
    return [spec.name === undefined ? '' : identifier(spec.name), partition, order, spec.frame ?? ''].filter(Boolean).join(' ');
  }

  const sql = printQuery(tree);
  return tree.writeBack ? { sql, parameters: [...parameters], derived, writeBack: tree.writeBack } : { sql, parameters: [...parameters], derived };
}
