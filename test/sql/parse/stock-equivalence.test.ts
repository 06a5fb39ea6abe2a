/**
 * cannery's grammar is node-sql-parser's with patches that add constructs; everything the stock
 * parser already read must come out the same. Every statement the repository holds (endpoints and
 * test strings, see bench/sql-corpus.ts) is parsed by both; the patched AST, with the documented
 * differences undone (stockShape), must equal the stock one, locations included.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { sqlCorpus } from '../../../bench/sql-corpus.js';
import { parseBigQuery } from '../../../src/sql/parse/parse.js';
import { SHIPPED_ENDPOINTS } from '../../support/shipped-endpoints.js';

const require = createRequire(import.meta.url);
const { Parser } = require('node-sql-parser/build/bigquery.js') as { Parser: new () => { astify(sql: string, options: object): unknown } };
const stock = new Parser();
const root = new URL('../../../', import.meta.url);

function stockParse(sql: string): unknown[] | undefined {
  try {
    const ast = stock.astify(sql, { database: 'bigquery', parseOptions: { includeLocations: true } });
    return withoutBookkeeping(Array.isArray(ast) ? ast : [ast]) as unknown[];
  } catch {
    return undefined;
  }
}

/** Literal types whose text node-sql-parser 5.4.0 partly decoded and cannery keeps as written. */
const DECODED_BY_STOCK = new Set(['single_quote_string', 'string', 'regex_string', 'date', 'time', 'timestamp', 'datetime']);
const STOCK_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** node-sql-parser 5.4.0's escape handling: \b \f \n \r \t \uXXXX decoded, every other escape kept. */
function stockDecode(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i]!;
    const next = raw[i + 1];
    if (char !== '\\' || next === undefined) out += char;
    else if (next in STOCK_ESCAPES) out += STOCK_ESCAPES[next], i++;
    else if (next === 'u' && /^[0-9a-f]{4}$/i.test(raw.slice(i + 2, i + 6))) out += String.fromCharCode(parseInt(raw.slice(i + 2, i + 6), 16)), (i += 5);
    else if ('\'"\\/'.includes(next)) out += char + next, i++;
    else out += char;
  }
  return out;
}

/**
 * node-sql-parser's running lists of the tables and columns it met, copied into some nodes; they
 * depend on the order the grammar tries alternatives in, and cannery never reads them (walk.ts).
 */
const BOOKKEEPING = new Set(['tableList', 'columnList']);

/** ORDER BY / LIMIT after a parenthesised last member: patch 17 keeps them where stock dropped them. */
const OUTER_ORDER = new Set(['_outer_orderby', '_outer_limit']);

/** An AST without node-sql-parser's bookkeeping lists. */
function withoutBookkeeping(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutBookkeeping);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !BOOKKEEPING.has(key)).map(([key, child]) => [key, withoutBookkeeping(child)]));
}

/** The patched AST with cannery's documented changes to already-parsed statements undone. */
function stockShape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stockShape);
  if (typeof value !== 'object' || value === null) return value;
  const node = Object.fromEntries(Object.entries(value).filter(([key]) => !BOOKKEEPING.has(key) && !OUTER_ORDER.has(key)).map(([key, child]) => [key, stockShape(child)]));
  if (DECODED_BY_STOCK.has(node.type as string) && typeof node.value === 'string') node.value = stockDecode(node.value);
  // A negative integer past 2^53 is exact here (docs/sql-parser.md, "Exact integers"); stock rounded it to a number.
  if (node.type === 'bigint' && typeof node.value === 'string' && /^-\d+$/.test(node.value)) return { ...node, type: 'number', value: Number(node.value) };
  return node;
}

/**
 * Whether the stock parser read a set operator as a join (`FROM t UNION ALL (SELECT ...)` as a join
 * of type UNION ALL): patch 12 reads it as the set operation it is, so there is nothing to compare.
 */
function setOperatorReadAsJoin(ast: unknown): boolean {
  return /"join":"(UNION|INTERSECT|EXCEPT)\b/i.test(JSON.stringify(ast));
}

/**
 * Whether the stock parser gave an alias to IN UNNEST (`x IN UNNEST(a) AS b`, the select item's
 * alias): patch 19 leaves it to the item.
 */
function aliasTakenByInUnnest(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(aliasTakenByInUnnest);
  if (typeof value !== 'object' || value === null) return false;
  const node = value as Record<string, unknown>;
  const right = node.right as Record<string, unknown> | undefined;
  if (/^(NOT )?IN$/i.test(String(node.operator)) && right?.type === 'unnest' && (right.as || right.with_offset)) return true;
  return Object.values(node).some(aliasTakenByInUnnest);
}

/**
 * Whether the stock parser took a string for a name (`AS "x"`, `WITH "c" AS`: DuckDB's quoting, in
 * tests' expected DuckDB SQL), which patch 22 refuses as BigQuery does.
 */
function stringTakenForName(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(stringTakenForName);
  if (typeof value !== 'object' || value === null) return false;
  const node = value as Record<string, unknown>;
  const quoted = (name: unknown) => /^(single|double)_quote_string$/.test(String((name as Record<string, unknown> | null)?.type));
  if (quoted(node.as) || (Array.isArray(node.with) && node.with.some((cte: Record<string, unknown>) => quoted(cte?.name)))) return true;
  return Object.values(node).some(stringTakenForName);
}

/** Whether the stock parser read ROLLUP(...) or CUBE(...) as a call of a function of that name: patch 25 reads a grouping spec. */
function groupingReadAsCall(ast: unknown): boolean {
  return /"type":"function","name":\{"name":\[[^\]]*\],"schema":\{"type":"default","value":"(rollup|cube)"\}/i.test(JSON.stringify(ast));
}

/** Whether the stock parser read a call's later arguments into a JSON literal (`JSON_SET(JSON '{}', '$.a', 1)`): patch 13 takes one string. */
function argumentsReadIntoJson(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(argumentsReadIntoJson);
  if (typeof value !== 'object' || value === null) return false;
  const node = value as Record<string, unknown>;
  if (node.type === 'json' && Array.isArray(node.expr_list) && node.expr_list.length > 1) return true;
  return Object.values(node).some(argumentsReadIntoJson);
}

/** Whether the stock parser read a PIVOT (dropping its aggregates' aliases): patch 28 reads a `pivot_operator`. */
function pivotReadByStock(ast: unknown): boolean {
  return /"type":"pivot"/.test(JSON.stringify(ast));
}

const corpus = sqlCorpus(root, SHIPPED_ENDPOINTS);
const parsedByStock = corpus.flatMap((entry) => {
  const ast = stockParse(entry.sql);
  return ast && !setOperatorReadAsJoin(ast) && !aliasTakenByInUnnest(ast) && !stringTakenForName(ast) && !groupingReadAsCall(ast) && !argumentsReadIntoJson(ast) && !pivotReadByStock(ast) ? [{ ...entry, ast }] : [];
});

describe('statements node-sql-parser 5.4.0 reads parse to the same AST', () => {
  it('compares against the release the grammar was taken from', () => {
    const installed = JSON.parse(readFileSync(new URL('node_modules/node-sql-parser/package.json', root), 'utf8')).version;
    const grammar = readFileSync(new URL('grammar/bigquery.pegjs', root), 'utf8');
    expect(grammar).toContain(`node-sql-parser ${installed}'s pegjs/bigquery.pegjs`);
  });

  it('finds the endpoints and the tests statements', () => {
    expect(parsedByStock.filter((entry) => entry.origin.startsWith('endpoints/')).length).toBeGreaterThanOrEqual(2);
    expect(parsedByStock.length).toBeGreaterThan(200);
  });

  it.each(parsedByStock.map((entry) => [entry.origin, entry]))('%s', (_origin, entry) => {
    expect(stockShape(parseBigQuery(entry.sql))).toEqual(entry.ast);
  });
});
