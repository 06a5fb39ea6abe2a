/**
 * UNPIVOT's type rule, checked once the query is read: parse/pivot.ts writes an UNPIVOT as a UNION
 * ALL of one SELECT per column set, which a UNION ALL would answer with the columns' supertype, where
 * GoogleSQL coerces nothing: the column in each place of a set must be of the first set's type
 * there, exactly (its resolver's `Type::Equals`: INT64 and FLOAT64 differ), else its error. The
 * types are the query's static types (static-type.ts) of the input's columns, followed through
 * subqueries and WITH tables (by BigQuery's scoping, table-scopes.ts); an untyped NULL selected is
 * an INT64, as GoogleSQL types it. Where a type is not known (a source's column, a parameter), the
 * UNPIVOT is refused by name: the UNION ALL could answer where BigQuery raises the error.
 */
import { InvalidQuery, type SqlLocation } from '../parse/errors.js';
import type { ColumnRef, Cte, DerivedTable, FromItem, Query, QueryBody, Select, TableRef } from '../parse/tree.js';
import { walkTree } from '../parse/walk.js';
import { impliedName } from './item-names.js';
import { staticType, type StaticType, type TypeLookup } from './static-type.js';
import { tableReads } from './table-scopes.js';

/** A column's type, or an untyped NULL in a set operation's member (it takes the other members' type). */
type MemberType = StaticType | undefined | 'null';

/** A relation in a SELECT's scope: its alias and its columns' types by lower-case name (undefined: not known). */
interface ScopeItem {
  alias: string | undefined;
  columns: ReadonlyMap<string, StaticType | undefined> | undefined;
}

/**
 * Checks every UNPIVOT of the query with two or more column sets: BigQuery's error where two
 * known types differ; the refusal (a construct's name) where a type is not known.
 */
export function checkUnpivotTypes(query: Query, lookup: TypeLookup): { what: string; loc: SqlLocation | undefined } | undefined {
  const unpivots: DerivedTable[] = [];
  walkTree(query, (node) => {
    if ('kind' in node && node.kind === 'derived' && node.unpivotValues !== undefined) unpivots.push(node);
  });
  if (unpivots.length === 0) return undefined;
  const ctes = new Map<TableRef, Cte | undefined>(tableReads(query).map((read) => [read.table, read.cte]));
  const typing = new Set<Query>();

  /** The type of each column of a query, in order; an untyped NULL selected is an INT64. */
  function queryTypes(query: Query): (StaticType | undefined)[] {
    // A recursive WITH table's member reads the table itself: its columns are not known while it is typed.
    if (typing.has(query)) return [];
    typing.add(query);
    const types = bodyTypes(query.body).map((type) => (type === 'null' ? 'int64' : type));
    typing.delete(query);
    return types;
  }

  function bodyTypes(body: QueryBody): MemberType[] {
    if (body.kind === 'query') return queryTypes(body);
    if (body.kind === 'select') {
      const columns = scope(body.from);
      return body.items.map((item) => {
        if (item.kind !== 'item') return undefined;
        if (item.expr.kind === 'literal' && item.expr.type === 'null') return 'null';
        return staticType(item.expr, { ...lookup, column: (ref) => columnType(ref, columns) });
      });
    }
    // A set operation's column has the type every member gives it, NULLs aside; by name, not followed.
    const members = body.members.map((member) => bodyTypes(member));
    return members[0]!.map((_, place) => {
      if (body.byName !== undefined) return undefined;
      const typed = new Set(members.map((member) => member[place]).filter((type) => type !== 'null'));
      if (typed.size === 0) return 'null';
      return typed.size === 1 ? [...typed][0] : undefined;
    });
  }

  function scope(from: readonly FromItem[]): ScopeItem[] {
    return from.flatMap((item): ScopeItem[] => {
      if (item.kind === 'join_group') return scope(item.items);
      if (item.kind !== 'derived' && item.kind !== 'table') return [{ alias: item.kind === 'unnest' ? item.alias : undefined, columns: undefined }];
      const alias = item.alias ?? (item.kind === 'table' ? item.name : undefined);
      const read = item.kind === 'derived' ? item.query : ctes.get(item)?.query;
      const names = read === undefined ? undefined : columnNames(read);
      if (read === undefined || names === undefined) return [{ alias, columns: undefined }];
      const types = queryTypes(read);
      return [{ alias, columns: new Map(names.map((name, index) => [name.toLowerCase(), types[index]])) }];
    });
  }

  for (const unpivot of unpivots) {
    const body = unpivot.query.body;
    if (body.kind !== 'set') continue;
    const width = unpivot.unpivotValues!;
    // Each member selects the input's other columns, the set's columns, then its label.
    const sets = body.members.map((member) => {
      const select = member as Select;
      const columns = scope(select.from);
      return select.items.slice(select.items.length - 1 - width, select.items.length - 1).map((item) => {
        const ref = (item as { expr: ColumnRef }).expr;
        return { ref, type: columnType(ref, columns) };
      });
    });
    let unknown = false;
    for (let place = 0; place < width; place++) {
      const expected = sets[0]![place]!.type;
      for (const set of sets.slice(1)) {
        const found = set[place]!.type;
        if (expected !== undefined && found !== undefined && found !== expected) {
          throw new InvalidQuery(`The datatype of column does not match with other datatypes in the IN clause. Expected ${expected.toUpperCase()}, Found ${found.toUpperCase()}`, set[place]!.ref.loc);
        }
        if (expected === undefined || found === undefined) unknown = true;
      }
    }
    if (unknown) return { loc: unpivot.loc, what: "UNPIVOT of columns whose types the query does not write (a source's column, a parameter: CAST each where its subquery names it; BigQuery refuses columns of different types, which a UNION ALL would coerce)" };
  }
  return undefined;
}

function columnType(ref: ColumnRef, scope: readonly ScopeItem[]): StaticType | undefined {
  if (ref.fields.length > 0) return undefined;
  if (ref.table !== undefined) return scope.find((item) => item.alias?.toLowerCase() === ref.table!.toLowerCase())?.columns?.get(ref.name.toLowerCase());
  // A name some item whose columns are not known may hold is not known either.
  if (scope.some((item) => item.columns === undefined)) return undefined;
  const holders = scope.filter((item) => item.columns!.has(ref.name.toLowerCase()));
  return holders.length === 1 ? holders[0]!.columns!.get(ref.name.toLowerCase()) : undefined;
}

/** A query's column names in order (its first SELECT's), or undefined where one is not named or is `*`. */
function columnNames(query: Query): string[] | undefined {
  let body: QueryBody = query.body;
  while (body.kind !== 'select') body = body.kind === 'set' ? body.members[0]! : body.body;
  const names: string[] = [];
  for (const item of body.items) {
    if (item.kind !== 'item') return undefined;
    const name = item.alias ?? impliedName(item.expr);
    if (name === undefined) return undefined;
    names.push(name);
  }
  return names;
}
