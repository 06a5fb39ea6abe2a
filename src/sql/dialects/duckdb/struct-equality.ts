/**
 * STRUCT equality as GoogleSQL defines it, where DuckDB's differs. GoogleSQL compares two STRUCTs
 * field by field, by position: FALSE when a pair of fields differs, else NULL when a field is NULL
 * on either side (`(1, NULL) = (1, 2)` is NULL), else TRUE; nested STRUCTs the same way. DuckDB's
 * `=` on structs takes a NULL field as a value (`(1, NULL) = (1, NULL)` is TRUE, `(1, NULL) =
 * (1, 2)` FALSE) and matches fields by name (a tuple never equals a named STRUCT of the same values).
 *
 * The shape to compare by is read from the query text: a STRUCT or tuple written in it (a field
 * written as a STRUCT, or declared as one in `STRUCT<...>`, is compared as a STRUCT in turn). Each
 * pair of fields is read by position (`struct_extract_at`) and compared with `=`, and the
 * comparisons are joined with AND, whose three values are GoogleSQL's rule above. Equality of
 * scalars never reaches here: it is written as it stands.
 */
import type { Printer } from '../../generator/dialect.js';
import type { Call, Case, Expr, StructLiteral, TypeName } from '../../parse/tree.js';
import { quoteIdentifier } from './quote.js';
import { repeatable } from './semantics.js';

/** The fields of a STRUCT value as the query text shows them: each a scalar (`undefined`) or a STRUCT of its own. */
export type StructShape = readonly (StructShape | undefined)[];

function shapeOfType(type: TypeName | undefined): StructShape | undefined {
  if (type?.name !== 'STRUCT' || !type.fields) return undefined;
  return type.fields.map((field) => shapeOfType(field.type));
}

/** The shape of a STRUCT the text writes (a tuple, `STRUCT(...)`, a CAST to a STRUCT type), or undefined. */
export function structShape(expr: Expr): StructShape | undefined {
  if (expr.kind === 'cast') return shapeOfType(expr.type);
  if (expr.kind !== 'struct') return undefined;
  const node: StructLiteral = expr;
  return node.fields.map((field, index) => shapeOfType(node.type?.fields?.[index]?.type) ?? structShape(field.expr));
}

/**
 * `left = right` by GoogleSQL's rule for STRUCTs of this shape: TRUE, FALSE or NULL. A STRUCT of
 * no fields is left to DuckDB's `=`, which has no NULL field to get wrong.
 */
export function structEquality(left: string, right: string, shape: StructShape, refuse: (what: string) => never): string {
  if (shape.length === 0) return `(${left} = ${right})`;
  const l = repeatable(left, refuse);
  const r = repeatable(right, refuse);
  const pairs = shape.map((field, index) => {
    const a = `struct_extract_at(${l}, ${index + 1})`;
    const b = `struct_extract_at(${r}, ${index + 1})`;
    return field === undefined ? `(${a} = ${b})` : structEquality(a, b, field, refuse);
  });
  return `(${pairs.join(' AND ')})`;
}

/**
 * `left IS DISTINCT FROM right` by GoogleSQL's rule for STRUCTs of this shape: a NULL STRUCT is
 * distinct from any other value but NULL, and two STRUCTs are distinct when a pair of fields is,
 * by position (DuckDB's matches fields by name). A STRUCT of no fields is left to DuckDB's.
 */
export function structDistinct(left: string, right: string, shape: StructShape, refuse: (what: string) => never): string {
  if (shape.length === 0) return `(${left} IS DISTINCT FROM ${right})`;
  const l = repeatable(left, refuse);
  const r = repeatable(right, refuse);
  const pairs = shape.map((field, index) => {
    const a = `struct_extract_at(${l}, ${index + 1})`;
    const b = `struct_extract_at(${r}, ${index + 1})`;
    return field === undefined ? `(${a} IS DISTINCT FROM ${b})` : structDistinct(a, b, field, refuse);
  });
  return `(CASE WHEN ${l} IS NULL OR ${r} IS NULL THEN (${l} IS NULL) <> (${r} IS NULL) ELSE ${pairs.join(' OR ')} END)`;
}

/**
 * `CASE s WHEN STRUCT(1, 2) THEN ...` compares by the rule above, as `CASE WHEN s = STRUCT(1, 2)`:
 * DuckDB's CASE would match fields by name and a NULL field as a value (ZetaSQL's
 * struct_equality_null_field). Undefined where no side is a STRUCT the text writes.
 */
export function structCase(node: Case, printer: Printer): string | undefined {
  if (node.subject === undefined) return undefined;
  const shape = [node.subject, ...node.whens.map((branch) => branch.when)].map(structShape).find((found) => found !== undefined);
  if (shape === undefined) return undefined;
  const refuse = (what: string) => printer.refuse(what, node);
  const subject = repeatable(printer.expr(node.subject), refuse);
  const whens = node.whens.map((branch) => ` WHEN ${structEquality(subject, printer.expr(branch.when), shape, refuse)} THEN ${printer.expr(branch.then)}`);
  return `(CASE${whens.join('')}${node.else === undefined ? '' : ` ELSE ${printer.expr(node.else)}`} END)`;
}

/** NULLIF of STRUCTs: the first unless the two are equal by the rule above (a NULL comparison keeps it). */
export function structNullif(node: Call, printer: Printer): string | undefined {
  if (node.name !== 'nullif' || node.args.length !== 2) return undefined;
  const shape = structShape(node.args[0]!) ?? structShape(node.args[1]!);
  if (shape === undefined) return undefined;
  const refuse = (what: string) => printer.refuse(what, node);
  const value = repeatable(printer.expr(node.args[0]!), refuse);
  return `(CASE WHEN ${structEquality(value, printer.expr(node.args[1]!), shape, refuse)} THEN NULL ELSE ${value} END)`;
}

/**
 * `value IN UNNEST(array)` by GoogleSQL's rule for STRUCTs: TRUE when an element equals the value,
 * else NULL when a comparison is NULL, else FALSE (an empty or NULL array: FALSE).
 */
export function structInUnnest(value: string, array: string, shape: StructShape, refuse: (what: string) => never): string {
  const element = '"__cannery_element"';
  const equal = structEquality(value, element, shape, refuse);
  return `(SELECT (CASE WHEN bool_or(${equal}) THEN TRUE WHEN bool_or((${equal}) IS NULL) THEN NULL ELSE FALSE END) FROM (SELECT UNNEST(${array}) AS ${element}))`;
}

function holdsStruct(type: TypeName): boolean {
  if (type.name === 'STRUCT') return true;
  return type.name === 'ARRAY' && type.element !== undefined && holdsStruct(type.element);
}

/**
 * A CAST to a type holding a STRUCT, as GoogleSQL casts one: field by field by position (DuckDB's
 * cast matches fields by name: `CAST(STRUCT(1 AS b, 2 AS a) AS STRUCT<a INT64, b INT64>)` would
 * swap the values, and a tuple would not cast at all). Undefined for a type holding no STRUCT.
 */
export function structCast(value: string, type: TypeName, safe: boolean, typeName: (type: TypeName) => string, refuse: (what: string) => never, depth = 0): string | undefined {
  if (!holdsStruct(type)) return undefined;
  // SAFE_CAST is NULL for the whole value when one field fails; DuckDB's TRY_CAST only that field's.
  if (safe) refuse('SAFE_CAST to a type holding a STRUCT');
  const v = repeatable(value, refuse);
  if (type.name === 'ARRAY') {
    const element = `__cannery_e${depth}`;
    return `list_transform(${v}, ${element} -> ${structCast(element, type.element!, safe, typeName, refuse, depth + 1)})`;
  }
  const fields = (type.fields ?? []).map((field, index) => {
    const read = `struct_extract_at(${v}, ${index + 1})`;
    const converted = structCast(read, field.type, safe, typeName, refuse, depth + 1) ?? `CAST(${read} AS ${typeName(field.type)})`;
    return `${quoteIdentifier(field.name ?? `_field_${index + 1}`)} := ${converted}`;
  });
  return `(CASE WHEN ${v} IS NULL THEN NULL ELSE struct_pack(${fields.join(', ')}) END)`;
}
