/**
 * The SQL redaction rules (src/sql/sandbox/redaction-rules.ts) run by a real DuckDB, through the generator
 * (the same tree the BigQuery dialect writes; both engines run RE2), on the output redactor's own
 * cases (test/engine/serve/redaction-cases.ts): every address the output redactor hides is hidden, and
 * where they differ the SQL rules hide more, only in the cases docs/redaction.md lists.
 */
import type { DuckDBConnection } from '#duckdb-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactString } from '../../../src/engine/serve/redact.js';
import { bigQueryDialect } from '../../../src/sql/dialects/bigquery/dialect.js';
import { duckDbDialect } from '../../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../../src/sql/generator/generate.js';
import { redactedExpr, REDACTED, REDACTION_RULES } from '../../../src/sql/sandbox/redaction-rules.js';
import type { Query } from '../../../src/sql/parse/tree.js';
import { connectDuckDB } from '../../support/duckdb.js';
import { readRedacted } from '../../support/sql-redaction.js';
import { EMAIL, IPV4, IPV6, MIXED, type Case } from '../../engine/serve/redaction-cases.js';

/** Inputs the SQL rules redact although the output redactor keeps them (docs/redaction.md). */
const HIDES_MORE: Record<string, string> = {
  '999.1.1.1': REDACTED,
  '10.0.0.256': REDACTED,
  '1.2.3.4.5': `${REDACTED}.5`,
  '1:2:3:4:5:6:7:8:9': `${REDACTED}:9`,
  '2001::db8::1': `${REDACTED}::1`,
  'lookup ip/8.8.8.8': `lookup ip/${REDACTED}`,
  'Mozilla/5.0 (X11) Chrome/126.0.0.0 Safari/537.36': `Mozilla/5.0 (X11) Chrome/${REDACTED} Safari/537.36`,
  'GET | 200 | 2a02:1a2b:3c:4d::5e | https://p.cannery.dev/rest/v1/t?email=eq.ivan.kim@acme.test | Chrome/126.0.0.0': `GET | 200 | ${REDACTED} | https://p.cannery.dev/rest/v1/t?email=${REDACTED} | Chrome/${REDACTED}`,
};

let db: Awaited<ReturnType<typeof connectDuckDB>>;
let connection: DuckDBConnection;

/** SELECT redacted(@text), as the DuckDB dialect writes it. */
const sql = (() => {
  const query: Query = {
    kind: 'query',
    with: [],
    body: { kind: 'select', distinct: false, items: [{ kind: 'item', expr: redactedExpr({ kind: 'param', name: 'text' }), alias: 'r' }], from: [], groupBy: [], windows: [] },
    orderBy: [],
  };
  return { duckdb: generate(query, duckDbDialect([])).sql, bigquery: generate(query, bigQueryDialect(new Map())).sql, query };
})();

async function redactInSql(text: string): Promise<string> {
  const reader = await connection.runAndReadAll(sql.duckdb, { text });
  return reader.getRows()[0]![0] as string;
}

/** The addresses the output redactor removes from `input`: the text between what it keeps. */
function removedAddresses(input: string, output: string): string[] {
  const kept = output.split(REDACTED);
  const removed: string[] = [];
  let position = 0;
  for (let index = 0; index < kept.length; index += 1) {
    const at = input.indexOf(kept[index]!, position);
    if (index > 0) removed.push(input.slice(position, at));
    position = at + kept[index]!.length;
  }
  return removed.filter((address) => address.length > 0);
}

beforeAll(async () => {
  db = await connectDuckDB();
  connection = db.connection;
});
afterAll(() => db.close());

describe.each([
  ['IPv4', IPV4],
  ['IPv6', IPV6],
  ['e-mail', EMAIL],
  ['mixed', MIXED],
])('%s', (_kind, cases: Case[]) => {
  it.each(cases)('%s: %j', async (_about, input) => {
    const output = await redactInSql(input);
    for (const address of removedAddresses(input, redactString(input))) expect(output).not.toContain(address);
  });
});

it('hides more than the output redactor only where docs/redaction.md says so', async () => {
  const differing: Record<string, string> = {};
  for (const [, input] of [...IPV4, ...IPV6, ...EMAIL, ...MIXED]) {
    const output = await redactInSql(input);
    if (output !== redactString(input)) differing[input] = output;
  }
  expect(differing).toEqual(HIDES_MORE);
});

it('hides every address the output redactor hides, on generated text', async () => {
  const octet = fc.integer({ min: 0, max: 255 }).map(String);
  const ipv4 = fc.tuple(octet, octet, octet, octet).map((parts) => parts.join('.'));
  const group = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));
  const ipv6 = fc.oneof(
    fc.array(group, { minLength: 8, maxLength: 8 }).map((groups) => groups.join(':')),
    fc.tuple(fc.array(group, { maxLength: 3 }), fc.array(group, { minLength: 1, maxLength: 3 })).map(([a, b]) => `${a.join(':')}::${b.join(':')}`),
  );
  const word = fc.stringMatching(/^[a-z0-9]{1,8}$/);
  const email = fc.tuple(word, word, fc.stringMatching(/^[a-z]{2,5}$/)).map(([local, host, top]) => `${local}@${host}.${top}`);
  const glue = fc.constantFrom(' ', ',', ';', '|', '=', '/', '(', ')', '[', ']', '"', "'", ':', '.', '-', '', 'x', '%');
  const text = fc.array(fc.tuple(glue, fc.oneof(ipv4, ipv6, email, word)), { maxLength: 6 }).map((parts) => parts.flat().join(''));
  await fc.assert(
    fc.asyncProperty(text, async (input) => {
      const output = await redactInSql(input);
      // None of what the output redactor hides in the input. Generated text can make the split
      // between kept and removed ambiguous (` 9@a.aaa@...` keeps an `@` that also sits inside the
      // removed part), so only pieces shaped like an address (an @, a dot or a colon) are looked for.
      for (const address of removedAddresses(input, redactString(input)).filter((piece) => /[@.:]/.test(piece))) expect(output).not.toContain(address);
      // The tests' JavaScript model of the rules gives what RE2 gives.
      expect(readRedacted(input)).toBe(output);
    }),
    { numRuns: 300 },
  );
  // 300 queries: about 4 s on an idle 2-core machine, and past the default 30 s under heavy load.
}, 180_000);

it('BigQuery runs the same patterns: the dialect writes them as REGEXP_REPLACE, global by definition', () => {
  // Each rule once per branch that redacts: the guards put the earlier ones in both branches of the later.
  const calls = 2 ** REDACTION_RULES.length - 1;
  expect(sql.bigquery.match(/REGEXP_REPLACE\(/gi)).toHaveLength(calls);
  expect(sql.duckdb.match(/regexp_replace\(/gi)).toHaveLength(calls);
  expect(sql.duckdb.match(/'g'\)/g)).toHaveLength(calls);
});
