/**
 * The GoogleSQL function reference's own examples (test/sql/reference/*.yaml), each compiled by the
 * generator and run on a real in-memory DuckDB opened as the service opens it, its answer compared
 * by type with the result BigQuery's reference prints. An example of a function the language table
 * refuses must be refused, naming the function, on both backends; an example the reference says
 * fails must fail (at compile time or when it runs), and so must one that `fails` on the embedded
 * engine for a gap outside its function. Nothing answers differently without an error.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DuckDBValue } from '#duckdb-api';
import { describe, expect, it } from 'vitest';
import * as YAML from '#yaml';
import { toWireValue } from '../../src/backends/duckdb/values.js';
import { sourceNames } from '../../src/config/sources.js';
import type { WireValue } from '../../src/core/types.js';
import { bigQueryDialect } from '../../src/sql/dialects/bigquery/dialect.js';
import { sourceTables } from '../../src/sql/dialects/bigquery/tables.js';
import { duckDbDialect } from '../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../src/sql/generator/generate.js';
import { UnsupportedConstruct } from '../../src/sql/generator/unsupported.js';
import { EXECUTION_TIME_PARAM, isSupportedFunction, REFUSED_FUNCTIONS } from '../../src/sql/language.js';
import { parseQuery } from '../../src/sql/parse/to-tree.js';
import { bigQueryTypeOf, mismatch, typeMatches, type Printed } from '../support/printed-values.js';
import { serviceDuckDbForFile } from '../support/duckdb.js';

const FOLDER = fileURLToPath(new URL('./reference/', import.meta.url));

interface Example {
  function: string;
  sql: string;
  rows?: Record<string, Printed>[];
  types?: Record<string, string>;
  /** Columns whose type the reference does not say: read off its printed values. */
  types_guessed?: string[];
  /** Printed without ORDER BY: compared as a multiset. */
  any_order?: boolean;
  error?: string | true;
  /** An error on the embedded engine where BigQuery answers, for a reason outside the function (never an answer). */
  fails?: string;
  refused?: string;
  skip?: string;
  note?: string;
}

const files = readdirSync(FOLDER).filter((file) => file.endsWith('.yaml')).sort();
const examples = files.map((file) => ({ file, examples: YAML.parse(readFileSync(FOLDER + file, 'utf8')) as Example[] }));

const duckdb = duckDbDialect(sourceNames());
const bigquery = bigQueryDialect(sourceTables(sourceNames(), { project: 'p', dataset: 'd' }));

const duck = serviceDuckDbForFile();

/** The refusal an example must meet: its own, or its function's when the table refuses that and the example calls it. */
function expectedRefusal(example: Example): string | undefined {
  if (example.refused !== undefined) return example.refused;
  if (example.fails !== undefined || example.error !== undefined) return undefined;
  const name = example.function.toLowerCase();
  const calls = new RegExp(`\\b${name.replace(/\./g, '\\.')}\\s*\\(`, 'i').test(example.sql);
  return name in REFUSED_FUNCTIONS && calls ? REFUSED_FUNCTIONS[name] : undefined;
}

interface Answer {
  columns: { name: string; type: string; duckType: Parameters<typeof bigQueryTypeOf>[0] }[];
  rows: { raw: DuckDBValue; wire: WireValue }[][];
}

async function run(sql: string): Promise<Answer> {
  const compiled = generate(parseQuery(sql), duckdb, { rowCap: 1000 });
  const bindings: Record<string, DuckDBValue> = {};
  for (const name of compiled.parameters) if (name === EXECUTION_TIME_PARAM) bindings[name] = '2024-05-08T12:00:00Z';
  const reader = await duck.connection().runAndReadAll(compiled.sql, bindings);
  const names = reader.columnNames();
  const types = reader.columnTypes();
  const raw = reader.getRows();
  const wire = reader.convertRows(toWireValue);
  return {
    columns: names.map((name, index) => ({ name, type: bigQueryTypeOf(types[index]!), duckType: types[index]! })),
    rows: raw.map((row, r) => row.map((value, c) => ({ raw: value, wire: (wire[r]![c] ?? null) as WireValue }))),
  };
}

/** What differs between the printed rows and DuckDB's, in order (or as a multiset), if anything. */
function differences(example: Example, answer: Answer): string[] {
  const expected = example.rows!;
  const names = Object.keys(expected[0] ?? {});
  const problems: string[] = [];
  const columns = answer.columns.map((column) => column.name);
  if (expected.length > 0 && JSON.stringify(columns) !== JSON.stringify(names)) problems.push(`columns ${JSON.stringify(columns)}, expected ${JSON.stringify(names)}`);
  for (const [index, column] of answer.columns.entries()) {
    const type = example.types?.[names[index] ?? ''];
    if (type !== undefined && !example.types_guessed?.includes(names[index]!) && !typeMatches(type, column.type)) problems.push(`column ${column.name} is ${column.type}, expected ${type}`);
  }
  if (answer.rows.length !== expected.length) return [...problems, `${answer.rows.length} rows, expected ${expected.length}`];
  const rowProblem = (want: Record<string, Printed>, got: Answer['rows'][number]) => {
    for (const [index, column] of answer.columns.entries()) {
      const name = names[index]!;
      const type = example.types_guessed?.includes(name) || example.types?.[name] === undefined ? column.type : example.types[name]!;
      const problem = mismatch(type, want[name] ?? null, { type: column.duckType, ...got[index]! });
      if (problem !== undefined) return `${name}: ${problem}`;
    }
    return undefined;
  };
  if (!example.any_order) {
    expected.forEach((want, index) => {
      const problem = rowProblem(want, answer.rows[index]!);
      if (problem !== undefined) problems.push(`row ${index}: ${problem}`);
    });
    return problems;
  }
  const unmatched = [...answer.rows];
  for (const want of expected) {
    const at = unmatched.findIndex((got) => rowProblem(want, got) === undefined);
    if (at === -1) problems.push(`no row matches ${JSON.stringify(want)}`);
    else unmatched.splice(at, 1);
  }
  return problems;
}

for (const { file, examples: fileExamples } of examples) {
  describe(file, () => {
    fileExamples.forEach((example, index) => {
      const title = `${index} ${example.function}: ${example.sql.replace(/\s+/g, ' ').slice(0, 90)}`;
      if (example.skip !== undefined) {
        it.skip(`${title} (${example.skip})`, () => {});
        return;
      }
      const refusal = expectedRefusal(example);
      it(title, async () => {
        if (refusal !== undefined) {
          const backends = example.function.toLowerCase() in REFUSED_FUNCTIONS ? [duckdb, bigquery] : [duckdb];
          for (const dialect of backends) {
            const compile = () => generate(parseQuery(example.sql), dialect, { rowCap: 1000 });
            expect(compile).toThrow(UnsupportedConstruct);
            expect(compile).toThrow(refusal);
          }
          return;
        }
        if (example.error !== undefined || example.fails !== undefined) {
          await expect(run(example.sql)).rejects.toThrow();
          return;
        }
        // What runs on DuckDB is also written for BigQuery.
        generate(parseQuery(example.sql), bigquery, { rowCap: 1000 });
        expect(differences(example, await run(example.sql)).join('\n')).toBe('');
      });
    });
  });
}

describe('the examples', () => {
  it('are each of a function the language table supports or refuses by name', () => {
    const named = examples.flatMap(({ examples: list }) => list.map((example) => example.function.toLowerCase()));
    const constructs = new Set(['case', 'case expr', 'cast', 'safe_cast', 'extract', 'array']);
    expect([...new Set(named)].filter((name) => !constructs.has(name) && !isSupportedFunction(name) && !(name in REFUSED_FUNCTIONS))).toEqual([]);
  });
});
