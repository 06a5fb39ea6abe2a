/**
 * A stored record handed over as DuckDB's JSON text (`to_json`) and read back with JSON.parse
 * (json-column.ts) is the same wire value as the STRUCT read a vector at a time and written back:
 * over random records of every shape the generator hands over so (STRINGs of any code point,
 * INT64s across their range and around 2^53, BOOLs, arrays of them or of records, records stored
 * as one STRUCT and written back as one-element lists, NULLs at every depth), on a real DuckDB,
 * compared as the wire's text; an array holding NULL fails both ways alike. And the DuckDB dialect
 * writes `to_json` only for a table whose types hold still and whose record holds nothing else,
 * also from columns passed as data.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWireRows } from '../../../src/backends/duckdb/result-rows.js';
import type { ColumnType, WireRow } from '../../../src/core/types.js';
import type { WriteBack } from '../../../src/sql/parse/tree.js';
import { resultBudget } from '../../../src/engine/serve/result-budget.js';
import { structShape, type Shape } from '../../../src/sql/analyse/shapes.js';
import { columnsData, columnsLookup } from '../../../src/sql/analyse/shape-data.js';
import { duckDbDialect } from '../../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../../src/sql/generator/generate.js';
import { parseQuery } from '../../../src/sql/parse/to-tree.js';
import { connectDuckDB } from '../../support/duckdb.js';

const MIB = 1024 * 1024;

/** A record's type as stored, and which of its records are stored as one STRUCT (written back as lists). */
interface Stored {
  type: ColumnType;
  writeBack?: WriteBack;
}

const FIELD_NAMES = ['a', 'B', 'x y', 'q"uote', "it's", 'é', '1', '10', 'constructor', 'toString', '__proto__', 'path'];
const INT64 = { kind: 'scalar', name: 'INT64' } as const;
const STRING = { kind: 'scalar', name: 'STRING' } as const;
const BOOL = { kind: 'scalar', name: 'BOOL' } as const;

const leaf = fc.constantFrom<ColumnType>(INT64, STRING, BOOL);

/** A struct's type at `depth`, its fields records of their own, arrays of scalars, or arrays of records (repeated, not stored as one). */
function structType(depth: number, underArray: boolean): fc.Arbitrary<Stored> {
  const field: fc.Arbitrary<Stored> =
    depth <= 0
      ? fc.oneof(leaf.map((type) => ({ type })), leaf.map((element) => ({ type: { kind: 'array', element } as ColumnType })))
      : fc.oneof(
          { weight: 3, arbitrary: leaf.map((type) => ({ type })) },
          { weight: 1, arbitrary: leaf.map((element) => ({ type: { kind: 'array', element } as ColumnType })) },
          { weight: 2, arbitrary: structType(depth - 1, underArray) },
          { weight: 1, arbitrary: structType(depth - 1, true).map(({ type }) => ({ type: { kind: 'array', element: type } as ColumnType })) },
        );
  return fc
    .uniqueArray(fc.tuple(fc.constantFrom(...FIELD_NAMES), field, fc.boolean()), { minLength: 1, maxLength: 4, selector: ([name]) => name })
    .chain((fields) =>
      fc.boolean().map((stored) => {
        const type: ColumnType = { kind: 'struct', fields: fields.map(([name, { type }]) => ({ name, type })) };
        // Under an array nothing is stored as one STRUCT (the import stores such records as lists).
        if (underArray) return { type };
        const inner: Record<string, WriteBack> = {};
        for (const [name, child] of fields) if (child.writeBack) inner[name] = child.writeBack;
        return { type, writeBack: { list: stored, fields: inner } };
      }),
    );
}

const TEXT = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('', '\u0001\u000b\u001f', '\u007f', '"\\/', '\u2028\u2029', '😀é', 'null', '123', '-9007199254740993', '0'.repeat(20)),
);
const BIG = 2n ** 53n;
const INTEGER = fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.constantFrom(BIG, BIG + 1n, BIG - 1n, -BIG, -BIG - 1n, 0n, 10n ** 15n, 10n ** 16n, -(2n ** 63n), 2n ** 63n - 1n), fc.bigInt({ min: -1000n, max: 1000n }));

/** A DuckDB literal of a random value of `type`, NULL one time in five (an array's elements more rarely). */
function literal(type: ColumnType, nulls = 5): fc.Arbitrary<string> {
  const value: fc.Arbitrary<string> = (() => {
    switch (type.kind) {
      case 'scalar':
        if (type.name === 'INT64') return INTEGER.map((n) => `(${n})::BIGINT`);
        if (type.name === 'BOOL') return fc.boolean().map(String);
        return TEXT.map((text) => `'${text.replaceAll("'", "''").replaceAll('\u0000', '')}'`);
      case 'array':
        return fc.array(literal(type.element, 40), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`);
      case 'struct':
        return fc.tuple(...type.fields.map((field) => literal(field.type))).map((values) => `{${type.fields.map((field, index) => `'${field.name.replaceAll("'", "''")}': ${values[index]}`).join(', ')}}`);
      default:
        throw new Error(`no literal of ${type.kind}`);
    }
  })();
  return fc.oneof({ weight: 1, arbitrary: fc.constant('NULL') }, { weight: nulls - 1, arbitrary: value });
}

function duckType(type: ColumnType): string {
  switch (type.kind) {
    case 'scalar':
      return type.name === 'INT64' ? 'BIGINT' : type.name === 'BOOL' ? 'BOOLEAN' : 'VARCHAR';
    case 'array':
      return `${duckType(type.element)}[]`;
    case 'struct':
      return `STRUCT(${type.fields.map((field) => `"${field.name.replaceAll('"', '""')}" ${duckType(field.type)}`).join(', ')})`;
    default:
      throw new Error(`no type of ${type.kind}`);
  }
}

describe('a stored record read as its JSON text', () => {
  let db: Awaited<ReturnType<typeof connectDuckDB>>;
  beforeAll(async () => {
    db = await connectDuckDB();
  });
  afterAll(() => db.close());

  /** The rows as the wire's text, or the error they fail with. */
  async function read(sql: string, writeBack: Record<string, WriteBack>): Promise<string> {
    try {
      return JSON.stringify(await readWireRows(await db.connection.stream(sql), 1000, resultBudget(64 * MIB), writeBack));
    } catch (error) {
      return `error: ${(error as Error).message}`;
    }
  }

  it('is the wire value the STRUCT converts to, over random records of every shape', async () => {
    const cases = structType(2, false).chain((stored) => fc.tuple(fc.constant(stored), fc.array(literal(stored.type), { minLength: 1, maxLength: 6 })));
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(cases, async ([stored, values]) => {
        const type = duckType(stored.type);
        await db.connection.run(`CREATE OR REPLACE TABLE records (i INTEGER, v ${type})`);
        await db.connection.run(`INSERT INTO records VALUES ${values.map((value, index) => `(${index}, CAST(${value} AS ${type}))`).join(', ')}`);
        const writeBack = stored.writeBack!;
        const asStruct = await read('SELECT i, v FROM records ORDER BY i', { v: writeBack });
        const asJson = await read('SELECT i, to_json(v) AS v FROM records ORDER BY i', { v: { ...writeBack, json: stored.type } });
        expect(asJson).toBe(asStruct);
        if (!asStruct.startsWith('error')) compared++;
      }),
      { numRuns: 300, seed: 40 },
    );
    // Most cases hold no NULL element and compare values, not errors.
    expect(compared).toBeGreaterThan(150);
  });

  it('reads an INT64 past 2^53 as its digits, in a list and beside strings of digits', async () => {
    const type: ColumnType = { kind: 'struct', fields: [{ name: 's', type: STRING }, { name: 'n', type: INT64 }, { name: 'l', type: { kind: 'array', element: INT64 } }] };
    const sql = `SELECT to_json({'s': '90071992547409931', 'n': 9007199254740993, 'l': [-9223372036854775808, 9007199254740992, 12]}) AS v`;
    const [row] = (await readWireRows(await db.connection.stream(sql), 10, resultBudget(MIB), { v: { list: true, fields: {}, json: type } })) as WireRow[];
    expect(JSON.stringify(row)).toBe('{"v":[{"s":"90071992547409931","n":"9007199254740993","l":["-9223372036854775808",9007199254740992,12]}]}');
  });
});

describe('the DuckDB dialect', () => {
  const scalar = (stored?: 'STRING' | 'INT64' | 'BOOL'): Shape => (stored ? { kind: 'scalar', stored } : { kind: 'scalar' });
  const columns = (leaf: Shape): Map<string, Shape> =>
    new Map<string, Shape>([
      ['id', scalar()],
      ['metadata', { kind: 'array', stored: 'struct', element: structShape([['host', scalar('STRING')], ['status', leaf], ['tags', { kind: 'array', element: scalar('STRING') }]]) }],
    ]);
  const compile = (leaf: Shape, sql = 'select id, metadata from logs') => generate(parseQuery(sql), duckDbDialect(['logs'], { sourceColumns: () => columns(leaf) }));

  it('hands an answer\'s stored record over as its JSON text where every scalar in it is a STRING, INT64 or BOOL of a table that holds still', () => {
    const compiled = compile(scalar('INT64'));
    expect(compiled.sql).toBe('SELECT "id", to_json("logs"."metadata") AS "metadata" FROM "logs" AS "logs"');
    expect(compiled.writeBack?.metadata?.json).toEqual({
      kind: 'struct',
      fields: [{ name: 'host', type: STRING }, { name: 'status', type: INT64 }, { name: 'tags', type: { kind: 'array', element: STRING } }],
    });
  });

  it('keeps the stored types when the columns pass as data (the compile cache, the compiling worker)', () => {
    const data = columnsData(['logs'], () => columns(scalar('INT64')));
    const compiled = generate(parseQuery('select id, metadata from logs'), duckDbDialect(['logs'], { sourceColumns: columnsLookup(data) }));
    expect(compiled.sql).toContain('to_json(');
  });

  it('reads the STRUCT as before where a scalar\'s stored type is not known (a FLOAT64, a file being written), or where the record is not the answer\'s', () => {
    for (const compiled of [compile(scalar()), compile(scalar('INT64'), 'select id from logs where array_length(metadata) = 1'), compile(scalar('INT64'), 'select id, m.host from logs cross join unnest(metadata) as m')]) {
      expect(compiled.sql).not.toContain('to_json');
      expect(compiled.writeBack?.metadata?.json).toBeUndefined();
    }
  });
});
