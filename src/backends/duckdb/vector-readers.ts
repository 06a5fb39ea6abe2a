/**
 * A vector's rows as wire values, read straight from its child vectors: the same values as
 * toWireValue of the library's getItem, without building the library's value objects first.
 * logs.all's metadata is a STRUCT of some 200 fields with lists of STRUCTs in it; each row of it
 * became a DuckDBStructValue (an object grown a field at a time), lists of them, then the wire
 * object made again from those: two passes and their garbage were most of the service's own CPU
 * per answer.
 */
import { DuckDBBlobVector, DuckDBListVector, DuckDBStructVector, DuckDBVarCharVector, type DuckDBVector } from '#duckdb-api';
import { resultTooLarge } from '../../engine/serve/result-budget.js';
import type { WireValue } from '../../core/types.js';
import type { WriteBack } from '../../sql/parse/tree.js';
import { toWireValue, withoutNullElements } from './values.js';
import { writeBackValue } from './write-back.js';
import { JSON_TEXT_BYTES_PER_WIRE_BYTE, jsonColumnReader } from './json-column.js';

export type WireReader = (row: number) => WireValue;

interface Validity {
  itemValid(row: number): boolean;
}

/**
 * `maxBytes`: the most one string or BYTES value may weigh, checked on DuckDB's length before the
 * value is copied out: a value of gigabytes (a 3 GB REPEAT did) crashed the process in the copy,
 * past any string JavaScript can hold, before the byte budget could see it.
 *
 * `writeBack`: the column's stored records, written back as writeBackValue writes them. A STRUCT
 * is written back as it is read, its one-element list made once, where writeBackValue copied each
 * record of every row again (logs.all's `metadata` holds some fifteen). A column the SQL hands
 * over as its JSON text (`writeBack.json`) is read as that text and parsed.
 */
export function wireReader(vector: DuckDBVector, maxBytes = Infinity, writeBack?: WriteBack): WireReader {
  if (writeBack?.json !== undefined) {
    // The record's JSON text (json-column.ts); the byte budget weighs the value it becomes.
    const read = valueReader(vector, maxBytes * JSON_TEXT_BYTES_PER_WIRE_BYTE);
    const finish = jsonColumnReader(writeBack.json, writeBack);
    return (row) => finish(read(row));
  }
  if (vector instanceof DuckDBStructVector) return structReader(vector, maxBytes, writeBack);
  if (writeBack === undefined) return valueReader(vector, maxBytes);
  const read = valueReader(vector, maxBytes);
  return (row) => writeBackValue(read(row), writeBack);
}

function valueReader(vector: DuckDBVector, maxBytes: number): WireReader {
  if (vector instanceof DuckDBListVector) {
    const valid = listValidity(vector);
    if (valid) return listReader(vector, valid, maxBytes);
  }
  const type = vector.type;
  const read: WireReader = (row) => toWireValue(vector.getItem(row), type, toWireValue);
  if (!(vector instanceof DuckDBVarCharVector || vector instanceof DuckDBBlobVector)) return read;
  const lengths = stringLengths(vector);
  if (lengths === undefined) return read;
  if (vector instanceof DuckDBVarCharVector) return varcharReader(vector, lengths, maxBytes);
  if (maxBytes === Infinity) return read;
  return (row) => {
    // DuckDB's string_t: 16 bytes a value, its length first (little-endian); a NULL's may be anything.
    if (lengths.valid.itemValid(row) && lengths.data.getUint32(row * 16, true) > maxBytes) throw resultTooLarge(maxBytes);
    return read(row);
  };
}

/**
 * A string vector's values as DuckDB lays them out, and its validity: the library keeps both
 * private. Where a later version keeps them elsewhere, values are read unchecked, as before (the
 * byte budget then sees them once copied).
 */
function stringLengths(vector: DuckDBVector): { data: DataView; valid: Validity } | undefined {
  const { dataView, validity } = vector as unknown as { dataView?: unknown; validity?: Partial<Validity> };
  if (!(dataView instanceof DataView) || typeof validity?.itemValid !== 'function') return undefined;
  return { data: dataView, valid: validity as Validity };
}

/** The longest string DuckDB keeps inside its 16-byte entry, after the length. */
const INLINE_BYTES = 12;

/**
 * A VARCHAR's values, a short ASCII one decoded here from its entry. The library makes a view of
 * every string's bytes and decodes it with a TextDecoder: logs.all's 100 rows hold some 2,900
 * strings of up to 12 bytes (methods, status codes, countries, short ids) among 5,700, each a view
 * and a native decode there, a few character codes here (what it saved: docs/benchmarks.md). A
 * longer string, or one with a byte past ASCII, is the library's (UTF-8, as DuckDB stores it).
 */
function varcharReader(vector: DuckDBVarCharVector, { data, valid }: { data: DataView; valid: Validity }, maxBytes: number): WireReader {
  return (row) => {
    if (!valid.itemValid(row)) return null;
    const entry = row * 16;
    const length = data.getUint32(entry, true);
    if (length > maxBytes) throw resultTooLarge(maxBytes);
    if (length <= INLINE_BYTES) {
      let text = '';
      for (let index = 0; index < length; index++) {
        const byte = data.getUint8(entry + 4 + index);
        if (byte >= 0x80) return vector.getItem(row);
        text += String.fromCharCode(byte);
      }
      return text;
    }
    return vector.getItem(row);
  };
}

function structReader(vector: DuckDBStructVector, maxBytes: number, writeBack: WriteBack | undefined): WireReader {
  const names = vector.type.entryNames;
  const fields = writeBack?.fields;
  const readers = names.map((name, index) => wireReader(vector.entryVectorAt(index), maxBytes, fields && Object.hasOwn(fields, name) ? fields[name] : undefined));
  const list = writeBack?.list === true;
  const proto = names.includes('__proto__');
  return (row) => {
    // No record is no element: BigQuery's repeated record is then `[]`.
    if (!vector.isItemValid(row)) return list ? [] : null;
    const result: Record<string, WireValue> = {};
    if (proto) {
      // Assigned, a field named __proto__ would set the object's prototype and leave the answer without it.
      for (let index = 0; index < names.length; index++) Object.defineProperty(result, names[index]!, { value: readers[index]!(row), enumerable: true, writable: true, configurable: true });
    } else {
      for (let index = 0; index < names.length; index++) result[names[index]!] = readers[index]!(row);
    }
    return list ? [result] : result;
  };
}

function listReader(vector: DuckDBListVector, valid: Validity, maxBytes: number): WireReader {
  const element = wireReader(vector.childVector, maxBytes);
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
