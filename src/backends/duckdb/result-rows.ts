/**
 * A streaming DuckDB result -> wire rows, a chunk at a time and a value at a time, each value
 * spent from the answer's byte budget as soon as it is converted. An answer over the budget
 * stops at the value that tips it over: a 100 MB string in the first row is refused without the
 * 999 rows after it ever becoming JS strings, and no answer holds more than about its budget.
 *
 * A streamed answer that fails after its first block (an interrupt, an error in a later row) ends
 * as if it were complete: DuckDB's client hands back no block, and no error. Only the result's
 * return type tells the two apart, INVALID once it failed: such an end is a StreamFailed, never
 * the rows read so far.
 */
import { ResultReturnType, type DuckDBResult } from '#duckdb-api';
import type { WireRow, WireValue } from '../../core/types.js';
import type { ResultBudget } from '../../engine/serve/result-budget.js';
import type { WriteBack } from '../../sql/parse/tree.js';
import { wireReader } from './vector-readers.js';

export async function readWireRows(result: DuckDBResult, maxRows: number, budget: ResultBudget, writeBack: Record<string, WriteBack> = {}): Promise<WireRow[]> {
  // Duplicate names get suffixes (`id`, `id:1`): an object cannot hold both.
  const names = result.deduplicatedColumnNames();
  const rows: WireRow[] = [];
  while (rows.length < maxRows) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) {
      if (result.returnType === ResultReturnType.INVALID) throw new StreamFailed('the query stopped while its rows were read');
      break;
    }
    const count = Math.min(chunk.rowCount, maxRows - rows.length);
    const readers = names.map((name, column) => wireReader(chunk.getColumnVector(column), budget.maxBytes, Object.hasOwn(writeBack, name) ? writeBack[name] : undefined));
    for (let index = 0; index < count; index++) {
      const members: [string, WireValue][] = [];
      for (let column = 0; column < names.length; column++) {
        const name = names[column]!;
        const wire = readers[column]!(index);
        budget.spendMember(name, wire);
        members.push([name, wire]);
      }
      // fromEntries defines own properties, so a column named __proto__ stays a column.
      rows.push(Object.fromEntries(members));
      await budget.breathe();
    }
  }
  return rows;
}

/** A streamed answer DuckDB stopped after its first block; its client does not say why. */
export class StreamFailed extends Error {}
