/**
 * The field names of an array of STRUCT literals, as BigQuery types it: the array's element type
 * takes the first element's names, and a later `('b', 2)` or `STRUCT('b', 2)` is that type too.
 * DuckDB types each struct_pack by its own names and unions them, so a later element written with
 * `_field_1, _field_2` would read NULL under `x, y`; written with the first's names, it keeps its
 * values.
 */
import type { ArrayLiteral, Expr } from '../../parse/tree.js';

type StructLiteral = Extract<Expr, { kind: 'struct' }>;

function isStructLiteral(expr: Expr | undefined): expr is StructLiteral {
  return expr?.kind === 'struct' && expr.type === undefined;
}

/** What an element names its fields: undefined where it leaves one unnamed. */
function namesOf(element: StructLiteral): (string | undefined)[] {
  return element.fields.map((field) => field.name);
}

export type NamedElements =
  | { elements: Expr[]; names: (string | undefined)[] | undefined }
  | { conflict: string };

/**
 * `[STRUCT('a' AS x, 1 AS y), ('b', 2)]` -> the elements with `x, y` written on the second, and the
 * names (undefined where the first leaves a field unnamed); an array that is not of STRUCT literals,
 * or has an element type written, is as it is (names undefined). A later element that names a
 * field otherwise than the first is a conflict: what BigQuery makes of it is not worked out here.
 */
export function namedStructElements(array: ArrayLiteral): NamedElements {
  const [first, ...rest] = array.elements;
  if (array.elementType !== undefined || !isStructLiteral(first)) return { elements: array.elements, names: undefined };
  const names = namesOf(first);
  const key = (name: string | undefined) => name?.toLowerCase();
  const elements: Expr[] = [first];
  for (const element of rest) {
    if (!isStructLiteral(element) || element.fields.length !== names.length) {
      elements.push(element);
      continue;
    }
    const clash = element.fields.findIndex((field, index) => field.name !== undefined && key(field.name) !== key(names[index]));
    if (clash >= 0) return { conflict: `an array of STRUCTs whose elements name field ${clash + 1} differently (${names[clash] ?? 'unnamed'}, ${element.fields[clash]!.name})` };
    elements.push({ ...element, tuple: false, fields: element.fields.map((field, index) => ({ ...field, name: names[index] })) });
  }
  return { elements, names };
}
