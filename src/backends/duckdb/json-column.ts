/**
 * An answer's stored record that DuckDB hands over as its JSON text (`to_json`, which the DuckDB
 * dialect writes where every scalar in the record is a STRING, INT64 or BOOL: stored-records.ts),
 * read with JSON.parse and finished into the wire value the STRUCT itself converts to (toWireValue,
 * the write-back): one string a row for the backend to copy out, where logs.all's `metadata` was
 * some hundred vectors read a value at a time (docs/benchmarks.md).
 *
 * What JSON.parse leaves to finish, from the record's type as stored: a stored record written back
 * as a one-element list (`[]` for none), a NULL array as `[]` and an array holding NULL as the same
 * error, and an INT64 past 2^53 as its decimal digits (wireInteger). A number JSON.parse read is
 * exact below 2^53 and at least 2^53 otherwise, so where one is not below it, the text is read
 * again with every long number in it quoted, and the digits are the integer's own.
 */
import type { ColumnType, WireValue } from '../../core/types.js';
import { wireInteger } from '../../core/wire-integer.js';
import type { WriteBack } from '../../sql/parse/tree.js';
import { withoutNullElements } from './values.js';

type Finish = (value: WireValue) => WireValue;

/**
 * Most bytes of JSON text DuckDB writes for one byte the wire value weighs at the least
 * (leastJsonBytes): a control character is six (`\u0001`), as JSON.stringify writes it too. So a
 * text past this many times the answer's budget is an answer over it, refused before it is copied.
 */
export const JSON_TEXT_BYTES_PER_WIRE_BYTE = 6;

/** A JSON number or string token: a number of 16 digits or more may be 2^53 or past it. */
const STRINGS_AND_LONG_NUMBERS = /"(?:[^"\\]|\\.)*"|-?\d{16,}/g;

const EXACT_BELOW = 2 ** 53;

/** A number JSON.parse read that may have lost digits. */
class Inexact extends Error {}

/** The wire value of each row's JSON text of a column typed `json` as stored and written back as `writeBack` says. */
export function jsonColumnReader(json: ColumnType, writeBack: WriteBack): (text: WireValue) => WireValue {
  const finish = finisher(json, writeBack);
  return (text) => {
    if (typeof text !== 'string') return finish ? finish(text) : text;
    if (finish === undefined) return JSON.parse(text) as WireValue;
    try {
      return finish(JSON.parse(text) as WireValue);
    } catch (error) {
      if (!(error instanceof Inexact)) throw error;
      const quoted = text.replace(STRINGS_AND_LONG_NUMBERS, (token) => (token.startsWith('"') ? token : `"${token}"`));
      return finish(JSON.parse(quoted) as WireValue);
    }
  };
}

/** What finishes a parsed value of `type`; undefined where JSON.parse's value is already the wire value. */
function finisher(type: ColumnType, writeBack: WriteBack | undefined): Finish | undefined {
  switch (type.kind) {
    case 'scalar':
      return type.name === 'INT64' ? integer : undefined;
    case 'array': {
      const element = finisher(type.element, undefined);
      // A NULL array is written `[]`, as toWireValue writes it.
      return (value) => {
        if (value === null) return [];
        const items = value as WireValue[];
        if (element) for (let index = 0; index < items.length; index++) items[index] = element(items[index]!);
        return withoutNullElements(items);
      };
    }
    case 'struct': {
      const fields: [string, Finish][] = [];
      for (const field of type.fields) {
        const inner = writeBack && Object.hasOwn(writeBack.fields, field.name) ? writeBack.fields[field.name] : undefined;
        const finish = finisher(field.type, inner);
        if (finish) fields.push([field.name, finish]);
      }
      const list = writeBack?.list === true;
      if (fields.length === 0 && !list) return undefined;
      return (value) => {
        // No record is no element: BigQuery's repeated record is then `[]`.
        if (value === null) return list ? [] : null;
        const record = value as Record<string, WireValue>;
        for (const [name, finish] of fields) if (Object.hasOwn(record, name)) record[name] = finish(record[name]!);
        return list ? [record] : record;
      };
    }
    default:
      return undefined;
  }
}

function integer(value: WireValue): WireValue {
  if (typeof value === 'number') {
    if (value < EXACT_BELOW && value > -EXACT_BELOW) return value;
    throw new Inexact();
  }
  return typeof value === 'string' ? wireInteger(BigInt(value)) : value;
}
