/**
 * No silent difference, by construction: every kind of node the grammar can make is either read
 * into the query tree (src/sql/parse/ast-keys.ts says which of its keys) or refused by name, and
 * every clause a SELECT or a FROM item can carry is one the reader reads. What the reader does
 * not take it refuses, naming it, on every backend: PIVOT can never again be parsed and dropped.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bigQueryDialect } from '../../../src/sql/dialects/bigquery/dialect.js';
import { sourceTables } from '../../../src/sql/dialects/bigquery/tables.js';
import { duckDbDialect } from '../../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../../src/sql/generator/generate.js';
import { UnsupportedConstruct } from '../../../src/sql/generator/unsupported.js';
import { READ_KEYS, REFUSED_KINDS } from '../../../src/sql/parse/ast-keys.js';
import { parseQuery } from '../../../src/sql/parse/to-tree.js';
import { sourceNames } from '../../../src/config/sources.js';

const GRAMMAR = readFileSync(fileURLToPath(new URL('../../../grammar/bigquery.pegjs', import.meta.url)), 'utf8');

/**
 * Kinds the grammar makes only outside a SELECT (statements cannery refuses whole, as any
 * statement but a SELECT), or only while it parses (an intermediate it folds away).
 */
const NOT_IN_A_SELECT: Readonly<Record<string, string>> = {
  alter: 'ALTER statement', assign: 'SET variable', call: 'CALL statement', check_option: 'CREATE VIEW option',
  delete: 'DELETE statement', desc: 'DESCRIBE statement', lock: 'LOCK statement', unlock: 'UNLOCK statement',
  'not null': 'column definition', 'on delete': 'foreign key', read: 'LOCK option', write: 'LOCK option', rename: 'RENAME statement',
  return: 'procedure body', set: 'SET statement', show: 'SHOW statement', storage: 'column definition', update: 'UPDATE statement',
  use: 'USE statement', values: 'INSERT values', 'with parser': 'index option', join: 'a join in a DDL statement', like: 'SHOW ... LIKE',
  arithmetic: 'a comparison chain, folded into binary_expr nodes while parsing',
  expr: 'a FROM item of an expression, read as a <from item>',
};

/** Every `type: '...'` the grammar's actions write. */
function grammarKinds(): string[] {
  return [...new Set([...GRAMMAR.matchAll(/(?:^|[^_a-z])(?:'type'|type):\s*'([^']+)'/g)].map((match) => match[1]!))].sort();
}

/** The keys of the object a grammar rule's action returns (its first `return { ... }`). */
function returnedKeys(rule: string): string[] {
  const start = GRAMMAR.indexOf(`\n${rule}\n`);
  expect(start, `rule ${rule}`).toBeGreaterThan(0);
  const body = GRAMMAR.slice(start, GRAMMAR.indexOf('\n\n', start + rule.length + 2));
  const object = /return \{([\s\S]*?)\};/.exec(body)?.[1] ?? '';
  return [...object.matchAll(/^\s*'?([a-z_]+)'?\s*:/gim)].map((match) => match[1]!);
}

const bigquery = bigQueryDialect(sourceTables(sourceNames(), { project: 'p', dataset: 'd' }));
const duckdb = duckDbDialect(sourceNames());

function refusal(sql: string): string[] {
  const query = parseQuery(sql);
  return [bigquery, duckdb].map((dialect) => {
    try {
      generate(query, dialect);
      return 'compiled';
    } catch (error) {
      if (!(error instanceof UnsupportedConstruct)) throw error;
      return error.construct;
    }
  });
}

describe('the reader against the grammar', () => {
  it('knows every kind of node the grammar makes: read, refused by name, or never in a SELECT', () => {
    const unclassified = grammarKinds().filter((kind) => !(kind in READ_KEYS) && !(kind in REFUSED_KINDS) && !(kind in NOT_IN_A_SELECT));
    expect(unclassified).toEqual([]);
  });

  it('lists no kind the grammar cannot make (a stale entry hides nothing, but misleads)', () => {
    const kinds = new Set(grammarKinds());
    // Kinds made by expressions rather than literals: literal types (`bytes_string`...), the
    // aggregate with clauses, extract, and the places without a type (`<select item>`).
    const computed = new Set(['bytes_string', 'raw_bytes_string', 'regex_string', 'date', 'datetime', 'timestamp', 'time', 'except', 'replace', 'ASC', 'DESC', 'aggr_func_clauses', 'extract', 'cast_format']);
    const stale = [...Object.keys(READ_KEYS), ...Object.keys(REFUSED_KINDS)].filter((kind) => !kind.startsWith('<') && !kinds.has(kind) && !computed.has(kind));
    expect(stale).toEqual([]);
  });

  it('reads every clause a SELECT can carry', () => {
    const clauses = returnedKeys('select_stmt_nake').filter((key) => key !== 'type');
    expect(clauses.length).toBeGreaterThan(10);
    expect(clauses.filter((key) => !READ_KEYS.select!.includes(key))).toEqual([]);
  });

  it('reads every part of a FROM item and of a pivot-like operator hung on it', () => {
    const fromItem = [...returnedKeys('table_join'), ...returnedKeys('from_unnest_item')].filter((key) => key !== 'type' && key !== 'parentheses');
    const known = new Set([...READ_KEYS['<from item>']!, ...READ_KEYS.unnest!]);
    expect(fromItem.filter((key) => !known.has(key))).toEqual([]);
    // FROM ... PIVOT(...) hangs the operator on the first item as `operator`: read as a PIVOT
    // (pivot.ts) on a table or subquery, refused by name on an UNNEST, which does not read it.
    expect(GRAMMAR).toMatch(/l\[0\]\.operator = op/);
    expect(READ_KEYS['<from item>']).toContain('operator');
    expect(READ_KEYS.unnest).not.toContain('operator');
  });
});

describe('what the reader does not read is refused by name, on both backends', () => {
  const cases: [string, string][] = [
    ["select * from unnest([1]) as k pivot (count(*) for k in (1))", 'PIVOT'],
    ['select * from unnest([1]) as k unpivot (v for n in (k))', 'UNPIVOT'],
    ["select x from unnest([1]) as x order by x collate 'und:ci'", 'COLLATE'],
    ["select x collate 'und:ci' as y from unnest(['a']) as x", 'COLLATE'],
    ['select * from unnest([1]) as x for system_time as of current_timestamp()', 'FOR SYSTEM_TIME AS OF'],
    ['select as struct distinct 1 as a', 'SELECT DISTINCT AS STRUCT'],
    ['select :x as a', 'parameter :x'],
  ];
  for (const [sql, construct] of cases) {
    it(`${construct}: ${sql}`, () => {
      const [onBigQuery, onDuckDb] = refusal(sql);
      expect(onBigQuery).toContain(construct);
      expect(onDuckDb).toContain(construct);
    });
  }
});
