/**
 * GoogleSQL's set operations by name (`BY NAME`, `CORRESPONDING`, with the modes INNER, FULL and
 * LEFT), made positional. DuckDB's own `UNION [ALL] BY NAME` matches as FULL does, and it has no
 * other mode, no column list and no INTERSECT or EXCEPT by name; so each input's columns are told
 * from the query itself, the result's columns worked out by GoogleSQL's rules, and every input
 * that does not already give them in that order is read through a SELECT that does, with NULL for
 * a column it lacks:
 *
 *   SELECT 1 AS a FULL UNION ALL BY NAME SELECT 2 AS b
 *   -> SELECT a AS a, NULL AS b FROM (SELECT 1 AS a) UNION ALL SELECT NULL AS a, b AS b FROM (SELECT 2 AS b)
 *
 * The result takes the first input's spelling of a name (a column only later inputs have, the
 * first of them that has it). What GoogleSQL rejects (a name one input lacks under BY NAME, no
 * common column, a duplicate name) is an error here too; an input whose columns cannot be told
 * (a star over a table of unknown columns, over an UNNEST or a JOIN ... USING, a column without a
 * name that is to be matched) is refused by name rather than guessed.
 */
import type { Rewrite } from '../../../generator/dialect.js';
import { UnsupportedConstruct } from '../../../generator/unsupported.js';
import { impliedName } from '../../../analyse/item-names.js';
import type { Columns } from '../../../analyse/shapes.js';
import { InvalidQuery } from '../../../parse/errors.js';
import type { Expr, FromItem, Query, QueryBody, Select, SelectItem, SetOperation } from '../../../parse/tree.js';
import { mapExprChildren, mapSelectChildren, type ChildMap } from '../../../parse/walk.js';

/** An input's column names in order, as spelled (ANONYMOUS for a column without one), or why they cannot be told. */
type Names = string[] | { unknown: string };

/** No name a query can spell: a column without a name matches nothing. */
const ANONYMOUS = '\u0000';

/** The columns of each CTE in scope, by lower-case name; `parent` is the enclosing query's. */
interface Scope {
  ctes: Map<string, Names>;
  parent: Scope | undefined;
}

const key = (name: string): string => name.toLowerCase();

function findCte(name: string, scope: Scope | undefined): Names | undefined {
  for (let current = scope; current; current = current.parent) {
    const names = current.ctes.get(key(name));
    if (names !== undefined) return names;
  }
  return undefined;
}

export function setsByName(sourceColumns: ((source: string) => Columns) | undefined): Rewrite {
  function refuse(what: string, node: { loc?: Expr['loc'] }): never {
    throw new UnsupportedConstruct(what, 'duckdb', node.loc);
  }

  function queryNames(query: Query, outer: Scope | undefined): Names {
    const scope: Scope = { ctes: new Map(), parent: outer };
    for (const cte of query.with) scope.ctes.set(key(cte.name), queryNames(cte.query, scope));
    return bodyNames(query.body, scope);
  }

  function bodyNames(body: QueryBody, scope: Scope): Names {
    if (body.kind === 'query') return queryNames(body, scope);
    if (body.kind === 'select') return selectNames(body, scope);
    if (body.byName) return plan(body, scope).columns;
    return body.members[0] ? bodyNames(body.members[0], scope) : [];
  }

  /** What each FROM item offers a star: its alias and its columns (an UNNEST's are not told). */
  function relations(items: readonly FromItem[], scope: Scope): { alias: string | undefined; names: Names }[] {
    return items.flatMap((item) => {
      if (item.kind !== 'unknown' && item.join?.using) return [{ alias: undefined, names: { unknown: 'a star over JOIN ... USING' } }];
      switch (item.kind) {
        case 'join_group':
          return relations(item.items, scope);
        case 'derived':
          return [{ alias: item.alias, names: queryNames(item.query, scope) }];
        case 'table': {
          const alias = item.alias ?? item.name.slice(item.name.lastIndexOf('.') + 1);
          const cte = item.qualified ? undefined : findCte(item.name, scope);
          if (cte !== undefined) return [{ alias, names: cte }];
          const columns = sourceColumns?.(item.name);
          return [{ alias, names: columns ? [...columns.keys()] : { unknown: `the columns of ${item.name}` } }];
        }
        case 'unnest':
          return [{ alias: item.alias, names: { unknown: 'a star over UNNEST' } }];
        default:
          return [{ alias: undefined, names: { unknown: 'a star over a table function' } }];
      }
    });
  }

  function selectNames(select: Select, scope: Scope): Names {
    const names: string[] = [];
    for (const item of select.items) {
      if (item.kind === 'item') {
        names.push(item.alias ?? impliedName(item.expr) ?? ANONYMOUS);
        continue;
      }
      const offered = relations(select.from, scope).filter((relation) => item.table === undefined || (relation.alias !== undefined && key(relation.alias) === key(item.table)));
      const except = new Set(item.except.map(key));
      for (const relation of offered) {
        if (!Array.isArray(relation.names)) return relation.names;
        names.push(...relation.names.filter((name) => !except.has(key(name))));
      }
    }
    return names;
  }

  /** The result's columns and, for each input, its own spelling of each (undefined: NULL). */
  function plan(set: SetOperation, scope: Scope): { columns: string[]; inputs: (string | undefined)[][] } {
    const match = set.byName!;
    const what = `${set.operators[0]} BY NAME`;
    // With a list, only its names are matched: other columns may repeat a name or have none.
    const listed = match.columns && new Set(match.columns.map(key));
    const inputs = set.members.map((member) => {
      const names = bodyNames(member, scope);
      if (!Array.isArray(names)) refuse(`${what} over an input whose columns cannot be told (${names.unknown})`, member);
      const seen = new Set<string>();
      for (const name of names) {
        if (listed !== undefined && !listed.has(key(name))) continue;
        if (name === ANONYMOUS) refuse(`${what} over an input with a column without a name`, member);
        if (seen.has(key(name))) throw new InvalidQuery(`Duplicate column name ${name} in an input of ${what}`, member.loc);
        seen.add(key(name));
      }
      return names;
    });
    const own = (input: readonly string[], name: string) => input.find((one) => key(one) === key(name));
    const first = inputs[0]!;
    const fail = (message: string): never => {
      throw new InvalidQuery(`${message} (${what}${match.mode === 'strict' ? '' : `, ${match.mode.toUpperCase()} mode`})`, set.loc);
    };
    let columns: string[];
    if (match.columns !== undefined) {
      const list = match.columns;
      const seen = new Set<string>();
      for (const name of list) {
        if (seen.has(key(name))) fail(`Duplicate column ${name} in the column list`);
        seen.add(key(name));
      }
      const required = match.mode === 'strict' || match.mode === 'inner' ? inputs : match.mode === 'left' ? [first] : [];
      for (const input of required) for (const name of list) if (own(input, name) === undefined) fail(`Column ${name} of the list is missing from an input`);
      columns = list.map((name) => inputs.map((input) => own(input, name)).find((one) => one !== undefined) ?? fail(`Column ${name} of the list is in no input`));
    } else if (match.mode === 'strict') {
      for (const input of inputs) if (input.length !== first.length || input.some((name) => own(first, name) === undefined)) fail('Every input must have the same column names');
      columns = first;
    } else if (match.mode === 'inner') {
      columns = first.filter((name) => inputs.every((input) => own(input, name) !== undefined));
      if (columns.length === 0) fail('The inputs have no column name in common');
    } else if (match.mode === 'left') {
      columns = first;
      // Without a list only: with one, an input may have none of its names (all NULL).
      for (const input of inputs.slice(1)) if (!columns.some((name) => own(input, name) !== undefined)) fail('An input has no column name in common with the first');
    } else {
      columns = [];
      for (const input of inputs) for (const name of input) if (own(columns, name) === undefined) columns.push(name);
    }
    return { columns, inputs: inputs.map((input) => columns.map((name) => own(input, name))) };
  }

  /** An input read through a SELECT of the result's columns in order, unless it already gives them so. */
  function positional(member: QueryBody, own: readonly (string | undefined)[], names: readonly string[], columns: readonly string[]): QueryBody {
    if (names.length === columns.length && own.every((name, index) => name !== undefined && name === names[index])) return member;
    const items: SelectItem[] = columns.map((name, index) => {
      const column = own[index];
      const expr: Expr = column === undefined ? { kind: 'literal', type: 'null', value: null, loc: member.loc } : { kind: 'column', name: column, fields: [], loc: member.loc };
      return { kind: 'item', expr, alias: name, loc: member.loc };
    });
    const query: Query = member.kind === 'query' ? member : { kind: 'query', with: [], body: member, orderBy: [], loc: member.loc };
    return { kind: 'select', distinct: false, items, from: [{ kind: 'derived', query, loc: member.loc }], groupBy: [], windows: [], loc: member.loc };
  }

  function childMap(scope: Scope): ChildMap {
    const map: ChildMap = {
      expr: (expr) => mapExprChildren(expr, map),
      query: (query) => rewriteQuery(query, scope),
    };
    return map;
  }

  function rewriteBody(body: QueryBody, scope: Scope): QueryBody {
    if (body.kind === 'query') return rewriteQuery(body, scope);
    if (body.kind === 'select') return mapSelectChildren(body, childMap(scope));
    const members = body.members.map((member) => rewriteBody(member, scope));
    if (!body.byName) return { ...body, members };
    const { columns, inputs } = plan(body, scope);
    const names = body.members.map((member) => bodyNames(member, scope) as string[]);
    return { kind: 'set', operators: body.operators, members: members.map((member, index) => positional(member, inputs[index]!, names[index]!, columns)), loc: body.loc };
  }

  function rewriteQuery(query: Query, outer: Scope | undefined): Query {
    const scope: Scope = { ctes: new Map(), parent: outer };
    // A CTE sees the ones before it: its columns are told, and it is rewritten, in that scope.
    const withs = query.with.map((cte) => {
      const rewritten = { ...cte, query: rewriteQuery(cte.query, scope) };
      scope.ctes.set(key(cte.name), queryNames(cte.query, scope));
      return rewritten;
    });
    const map = childMap(scope);
    return {
      ...query,
      with: withs,
      body: rewriteBody(query.body, scope),
      orderBy: query.orderBy.map((item) => ({ ...item, expr: map.expr(item.expr) })),
      limit: query.limit && { count: map.expr(query.limit.count), offset: query.limit.offset && map.expr(query.limit.offset) },
    };
  }

  return (query) => rewriteQuery(query, undefined);
}
