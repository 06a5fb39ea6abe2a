/** Source columns as JSON data and back, for a dialect's settings (generator/dialect.ts). */
import { structShape, type Columns, type Shape, type StoredScalar } from './shapes.js';

/** A Shape as JSON: a struct's fields as [name as spelt, shape] pairs, in their order. */
export type ShapeData =
  | { kind: 'unknown' }
  | { kind: 'scalar'; notNull?: true; float64?: true; stored?: StoredScalar }
  | { kind: 'array'; element: ShapeData; stored?: 'struct' | undefined; present?: true }
  | { kind: 'struct'; fields: [string, ShapeData][] };

/** The columns of each of `sources` that `lookup` knows, as data. */
export function columnsData(sources: readonly string[], lookup: ((source: string) => Columns) | undefined): Record<string, [string, ShapeData][]> {
  const data: Record<string, [string, ShapeData][]> = {};
  for (const source of sources) {
    const columns = lookup?.(source);
    if (columns) data[source] = [...columns].map(([name, shape]) => [name, shapeData(shape)]);
  }
  return data;
}

/** Looks the columns of `data` up by source name; a name it does not hold has no known columns. */
export function columnsLookup(data: Readonly<Record<string, [string, ShapeData][]>>): (source: string) => Columns {
  const bySource = new Map<string, Columns>(Object.entries(data).map(([source, columns]) => [source, new Map(columns.map(([name, shape]) => [name, shapeOf(shape)]))]));
  return (source) => bySource.get(source);
}

function shapeData(shape: Shape): ShapeData {
  switch (shape.kind) {
    case 'unknown':
      return { kind: shape.kind };
    case 'scalar':
      return { kind: 'scalar', ...(shape.notNull ? { notNull: true } : {}), ...(shape.float64 ? { float64: true } : {}), ...(shape.stored ? { stored: shape.stored } : {}) };
    case 'array':
      if (!shape.stored) return { kind: 'array', element: shapeData(shape.element) };
      return shape.present ? { kind: 'array', element: shapeData(shape.element), stored: shape.stored, present: true } : { kind: 'array', element: shapeData(shape.element), stored: shape.stored };
    case 'struct':
      return { kind: 'struct', fields: shape.names.map((name) => [name, shapeData(shape.fields.get(name.toLowerCase())!)]) };
  }
}

function shapeOf(data: ShapeData): Shape {
  switch (data.kind) {
    case 'unknown':
      return { kind: data.kind };
    case 'scalar':
      return { kind: 'scalar', ...(data.notNull ? { notNull: true } : {}), ...(data.float64 ? { float64: true } : {}), ...(data.stored ? { stored: data.stored } : {}) };
    case 'array':
      return data.present ? { kind: 'array', element: shapeOf(data.element), stored: data.stored, present: true } : { kind: 'array', element: shapeOf(data.element), stored: data.stored };
    case 'struct':
      return structShape(data.fields.map(([name, field]) => [name, shapeOf(field)]));
  }
}
