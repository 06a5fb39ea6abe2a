/**
 * A set operation's STRUCT columns take the field names of its first operand in BigQuery (the
 * operands' STRUCTs are matched by position: `SELECT STRUCT(1 AS a) UNION ALL SELECT STRUCT(2 AS b)`
 * is two rows of `{a}`); DuckDB matches struct fields by name and gives the union of both sets
 * (`{a, b}`, each row NULL in the other's). Where the first operand writes a STRUCT, each later
 * operand's column there is rebuilt under the first's names, position by position: a STRUCT it
 * writes is renamed, any other value read field by field (`struct_extract_at`), NULL staying NULL.
 * Where the first operand's names are not in the text (a column, a `*`) and a later one writes a
 * STRUCT, the query is refused by name rather than answered with DuckDB's names.
 */
import type { Rewrite } from '../../../generator/dialect.js';
import type { Expr, QueryBody, Select, SelectItem, StructLiteral, TypeName } from '../../../parse/tree.js';
import { rewriteBodies } from '../../../parse/walk.js';

/** The field names of a STRUCT the text writes, each with the names of a STRUCT field in turn. */
interface Names {
  fields: { name: string; nested?: Names | undefined }[];
}

function typeNames(type: TypeName | undefined): Names | undefined {
  if (type?.name !== 'STRUCT' || !type.fields) return undefined;
  return { fields: type.fields.map((field, index) => ({ name: field.name ?? `_field_${index + 1}`, nested: typeNames(field.type) })) };
}

/** The names a STRUCT column is given where it is written (as the DuckDB dialect names unnamed fields: `_field_n`). */
function namesOf(expr: Expr): Names | undefined {
  if (expr.kind === 'cast') return typeNames(expr.type);
  if (expr.kind !== 'struct') return undefined;
  const node: StructLiteral = expr;
  return {
    fields: node.fields.map((field, index) => {
      const declared = node.type?.fields?.[index];
      return { name: declared?.name ?? field.name ?? `_field_${index + 1}`, nested: typeNames(declared?.type) ?? namesOf(field.expr) };
    }),
  };
}

/** `value` as a STRUCT of these names, by position. */
function renamed(value: Expr, names: Names): Expr {
  if (value.kind === 'struct' && value.type === undefined && value.fields.length === names.fields.length) {
    return {
      ...value,
      tuple: false,
      fields: value.fields.map((field, index) => {
        const target = names.fields[index]!;
        return { name: target.name, expr: target.nested ? renamed(field.expr, target.nested) : field.expr };
      }),
    };
  }
  const rebuilt: Expr = {
    kind: 'struct',
    fields: names.fields.map((target, index) => {
      const field: Expr = { kind: 'native', name: 'struct_extract_at', args: [value, { kind: 'literal', type: 'int64', value: String(index + 1) }] };
      return { name: target.name, expr: target.nested ? renamed(field, target.nested) : field };
    }),
  };
  return { kind: 'case', whens: [{ when: { kind: 'binary', operator: 'IS', left: value, right: { kind: 'literal', type: 'null', value: null } }, then: { kind: 'literal', type: 'null', value: null } }], else: rebuilt };
}

function leftmostSelect(body: QueryBody): Select {
  if (body.kind === 'select') return body;
  if (body.kind === 'set') return leftmostSelect(body.members[0]!);
  return leftmostSelect(body.body);
}

const UNNAMED = 'a STRUCT in a later operand of a set operation whose first operand does not write its field names (write the first operand\'s STRUCT with STRUCT(... AS name))';

/** A later operand with its STRUCT columns under the first operand's names. */
function aligned(body: QueryBody, first: readonly SelectItem[]): QueryBody {
  if (body.kind === 'set') return { ...body, members: body.members.map((member) => aligned(member, first)) };
  if (body.kind === 'query') return { ...body, body: aligned(body.body, first) };
  const starred = first.some((item) => item.kind === 'star') || body.items.some((item) => item.kind === 'star');
  return {
    ...body,
    items: body.items.map((item, index) => {
      if (item.kind !== 'item') return item;
      const leading = first[index];
      const names = !starred && leading?.kind === 'item' ? namesOf(leading.expr) : undefined;
      if (names !== undefined) return { ...item, expr: renamed(item.expr, names) };
      const needsNames = namesOf(item.expr) !== undefined || (starred && first.some((other) => other.kind === 'item' && namesOf(other.expr) !== undefined));
      return needsNames ? { ...item, expr: { kind: 'unknown', what: UNNAMED, loc: item.expr.loc } } : item;
    }),
  };
}

function alignedSet(body: QueryBody): QueryBody {
  if (body.kind !== 'set') return body;
  const members = body.members.map(alignedSet);
  const first = leftmostSelect(members[0]!).items;
  return { ...body, members: members.map((member, index) => (index === 0 ? member : aligned(member, first))) };
}

export const setOperationStructNames: Rewrite = rewriteBodies(alignedSet);
