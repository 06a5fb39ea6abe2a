/**
 * A vector's rows as wire values, read straight from its child vectors: the same values as
 * toWireValue of the library's getItem, without building the library's value objects first.
 * logs.all's metadata is a STRUCT of some 200 fields with lists of STRUCTs in it; each row of it
 * became a DuckDBStructValue (an object grown a field at a time), lists of them, then the wire
 * object made again from those: two passes and their garbage were most of the service's own CPU
 * per answer.
 */
import { DuckDBListVector, DuckDBStructVector, type DuckDBVector } from '#duckdb-api';
import type { WireValue } from '../../core/types.js';
import { toWireValue, withoutNullElements } from './values.js';

export type WireReader = (row: number) => WireValue;

interface Validity {
  itemValid(row: number): boolean;
}

export function wireReader(vector: DuckDBVector): WireReader {
  if (vector instanceof DuckDBStructVector) return structReader(vector);
  if (vector instanceof DuckDBListVector) {
    const valid = listValidity(vector);
    if (valid) return listReader(vector, valid);
  }
  const type = vector.type;
  return (row) => toWireValue(vector.getItem(row), type, toWireValue);
}

function structReader(vector: DuckDBStructVector): WireReader {
  const names = vector.type.entryNames;
  const readers = names.map((_, index) => wireReader(vector.entryVectorAt(index)));
  return (row) => {
    if (!vector.isItemValid(row)) return null;
    const result: Record<string, WireValue> = {};
    for (let index = 0; index < names.length; index++) result[names[index]!] = readers[index]!(row);
    return result;
  };
}

function listReader(vector: DuckDBListVector, valid: Validity): WireReader {
  const element = wireReader(vector.childVector);
  // A NULL array is written `[]`, as toWireValue writes it.
  return (row) => {
    if (!valid.itemValid(row)) return [];
    const offset = vector.getEntryOffset(row);
    const length = vector.getEntryLength(row);
    const items: WireValue[] = new Array(length);
    for (let index = 0; index < length; index++) items[index] = element(offset + index);
    return withoutNullElements(items);
  };
}

/**
 * A list vector's validity: the library keeps it private (a NULL list's entry holds no
 * meaningful offset, so it must be asked first). Where a later version keeps it elsewhere, the
 * list is read through getItem instead, as before.
 */
function listValidity(vector: DuckDBListVector): Validity | undefined {
  const validity = (vector as unknown as { validity?: Partial<Validity> }).validity;
  return typeof validity?.itemValid === 'function' ? (validity as Validity) : undefined;
}
