/**
 * The bounds of host functions' work, measured from their arguments before the work is done: a
 * block of rows past a function's bound is refused with the BigQuery function's name and the
 * bound, and every host function has one.
 */
import { describe, expect, it } from 'vitest';
import { HOST_FUNCTIONS } from '../../../../src/sql/dialects/duckdb/host-functions.js';
import { blockMeter, checkOutput, HOST_FUNCTION_BOUNDS, HostBoundError, lengthOf, measure } from '../../../../src/sql/dialects/duckdb/host-function-bounds.js';

const refusal = (work: () => void): Error => {
  try {
    work();
  } catch (error) {
    return error as Error;
  }
  throw new Error('not refused');
};

describe('host function bounds', () => {
  it('name the BigQuery function for every host function, never its internal name', () => {
    expect(Object.keys(HOST_FUNCTION_BOUNDS).sort()).toEqual(Object.keys(HOST_FUNCTIONS).sort());
    for (const { called, work } of Object.values(HOST_FUNCTION_BOUNDS)) {
      // A function's name, or an operator's with its operands' type (BIGNUMERIC's `*`), and what else renders to it.
      expect(called).toMatch(/^([A-Z][A-Z0-9_.]*|the operator \S+ of [A-Z]+)( \(or [A-Z_]+(, [A-Z_]+)*\))?$/);
      expect(work.bound).toBeGreaterThan(0);
    }
  });

  it('measure characters, bytes and list elements, and the product of two lengths for a table or a search', () => {
    expect(lengthOf('abc')).toBe(3);
    expect(lengthOf(new Uint8Array(5))).toBe(5);
    expect(lengthOf(['ab', 'c', null])).toBe(3 + 2 + 2);
    expect(lengthOf(42n)).toBe(1);
    expect(measure(HOST_FUNCTION_BOUNDS.initcap.work, ['abcd', ' '])).toBe(5);
    expect(measure(HOST_FUNCTION_BOUNDS.edit_distance.work, ['a'.repeat(20_000), 'b'.repeat(20_000)])).toBe(20_000 * 20_000 + 40_000);
    // An empty needle still walks every position of the text.
    expect(measure(HOST_FUNCTION_BOUNDS.instr.work, ['a'.repeat(1000), '', 1n, 1n])).toBe(1000 + 1000 + 2);
  });

  it("refuse EDIT_DISTANCE of two 20,000-character strings before computing it, and a block's rows together past the bound", () => {
    const block = blockMeter('edit_distance');
    const error = refusal(() => block.add(measure(HOST_FUNCTION_BOUNDS.edit_distance.work, ['a'.repeat(20_000), 'b'.repeat(20_000)])));
    expect(error).toBeInstanceOf(HostBoundError);
    expect(error.message).toBe(
      "EDIT_DISTANCE on the embedded engine takes at most 16,000,000 of its arguments' lengths multiplied (400,040,000, summed over the rows it computes at once, up to 2,048); pass it shorter values or fewer rows",
    );
    // 3,000 x 3,000 is within it once; a block of two such rows is not.
    const rows = blockMeter('edit_distance_bytes');
    const row = measure(HOST_FUNCTION_BOUNDS.edit_distance_bytes.work, [new Uint8Array(3000), new Uint8Array(3000)]);
    rows.add(row);
    expect(refusal(() => rows.add(row)).message).toMatch(/^EDIT_DISTANCE .*18,012,000/);
  });

  it('refuse INSTR over 60,000-character strings, and allow a long text with a short needle', () => {
    expect(refusal(() => blockMeter('instr').add(measure(HOST_FUNCTION_BOUNDS.instr.work, ['a'.repeat(60_000), 'a'.repeat(60_000), 1n, 1n]))).message).toMatch(/^INSTR /);
    expect(() => blockMeter('instr').add(measure(HOST_FUNCTION_BOUNDS.instr.work, ['a'.repeat(1_000_000), 'needle', 1n, 1n]))).not.toThrow();
  });

  it('refuse JSON text past the JSON functions\' bound, in the caller\'s function name', () => {
    // A million small values: 2 million characters, but each comma weighs a value's work.
    const text = `[${'1,'.repeat(1_000_000)}1]`;
    expect(refusal(() => blockMeter('json_query_array').add(measure(HOST_FUNCTION_BOUNDS.json_query_array.work, [text, '', true]))).message).toMatch(/^JSON_QUERY_ARRAY .*32,000,000/);
    // A block of 2,048 log lines' objects of 2 KB each passes.
    const line = JSON.stringify({ level: 'info', msg: 'x'.repeat(1_400), request: { method: 'GET', path: '/rest/v1/todos', headers: { ua: 'Mozilla/5.0', ip: '1.2.3.4' } }, status: 200 });
    const block = blockMeter('json_value');
    expect(() => {
      for (let row = 0; row < 2048; row++) block.add(measure(HOST_FUNCTION_BOUNDS.json_value.work, [line, '$.level']));
    }).not.toThrow();
  });

  it('refuse an output past its bound before it is written', () => {
    expect(() => checkOutput('FORMAT', 'for one row', 1 << 20, 1 << 20)).not.toThrow();
    expect(refusal(() => checkOutput('FORMAT', 'for one row', 500_000_000, 1 << 20)).message).toBe(
      'FORMAT on the embedded engine writes at most 1,048,576 characters for one row; this one would write 500,000,000',
    );
  });
});
