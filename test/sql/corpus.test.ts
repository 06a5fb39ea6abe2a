/**
 * The client corpus (test/sql/corpus/*.yaml): queries in the idioms of real clients of `logs.all`
 * (Supabase Studio's Logs Explorer, log pages and reports; Logflare's LQL), each sent through the
 * real service over a socket on DuckDB and compared with the rows BigQuery gives on the fixture
 * (test/sql/corpus/fixture.yaml), worked out by hand; and each compiled for BigQuery and compared
 * with its golden text.
 *
 * A case DuckDB does not answer as BigQuery would today carries `pending: <reason>` (several
 * reasons separated by "; ") and runs as `it.fails`, so it must still fail: when the feature
 * lands, remove the mark. A case the BigQuery generator cannot compile today carries
 * `pending_bigquery: <reason>` the same way. docs/clients.md shows the figures; DOCS_UPDATE=1
 * rewrites them.
 *
 * The BigQuery text of a sandbox query is the endpoint CTEs it reads (all nine kept once, in
 * corpus/logs-all-ctes.bigquery.sql), then the case's `bigquery` text (the caller's own CTEs, if
 * any, and its SELECT).
 * CORPUS_UPDATE=1 rewrites those texts from the generator (review the diff); never the rows.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as YAML from '#yaml';
import { sourceNames } from '../../src/config/sources.js';
import type { CompiledEndpoint } from '../../src/engine/compiled-endpoint.js';
import { loadRegistry } from '../../src/engine/serve/registry.js';
import { compileSandboxQuery } from '../../src/engine/serve/sandbox-compile.js';
import { bigQueryDialect } from '../../src/sql/dialects/bigquery/dialect.js';
import { sourceTables } from '../../src/sql/dialects/bigquery/tables.js';
import { queryPath } from '../endpoints/edge-fixtures.js';
import { endpointCtesRead, endpointCtesText } from '../support/sandbox-ctes.js';
import { SHIPPED_ENDPOINTS, startTestService, type Fixtures, type TestService } from '../support/service.js';

const FOLDER = fileURLToPath(new URL('./corpus/', import.meta.url));
const DOCS = fileURLToPath(new URL('../../docs/clients.md', import.meta.url));
const DOCS_BEGIN = '<!-- corpus:begin -->';
const DOCS_END = '<!-- corpus:end -->';
const CTES_FILE = FOLDER + 'logs-all-ctes.bigquery.sql';
const UPDATE = process.env.CORPUS_UPDATE === '1';
/** The service's clock: CURRENT_TIMESTAMP() in every case. */
const NOW = '2024-05-02T15:00:00Z';

type Row = Record<string, unknown>;

/** A TIMESTAMP in an expected row, written as ISO 8601 (`!ts 2024-05-01T10:00:00Z`); on the wire it is Unix microseconds. */
class Instant {
  constructor(readonly iso: string) {}
}

const timestampTag: YAML.ScalarTag = {
  tag: '!ts',
  identify: (value) => value instanceof Instant,
  resolve: (text) => new Instant(text),
  stringify: (item) => (item.value as Instant).iso,
};
const YAML_OPTIONS = { customTags: [timestampTag] };

interface CorpusCase {
  name: string;
  /** Where the idiom comes from: the client's file and function. */
  from: string;
  /** logs.all's parameters; default `{ project: alpha }`. */
  params?: Record<string, string>;
  sql: string;
  /** BigQuery's answer on the fixture, in order unless `unordered`. */
  rows: Row[];
  unordered?: boolean;
  pending?: string;
  bigquery?: string;
  pending_bigquery?: string;
}

const files = readdirSync(FOLDER).filter((file) => file.endsWith('.yaml') && file !== 'fixture.yaml').sort();
const suites = files.map((file) => ({ file, cases: YAML.parse(readFileSync(FOLDER + file, 'utf8'), YAML_OPTIONS) as CorpusCase[] }));
const allCases = suites.flatMap((suite) => suite.cases);

const bigquery = bigQueryDialect(sourceTables(sourceNames(), { project: 'p', dataset: 'd' }));
let logsAll: CompiledEndpoint;
let svc: TestService;
/** The text every sandbox query's BigQuery SQL starts with: logs.all's CTEs. */
let ctes: string;

function wire(value: unknown): unknown {
  if (value instanceof Instant) return Date.parse(value.iso) * 1000;
  if (Array.isArray(value)) return value.map(wire);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, wire(inner)]));
  return value;
}

const sortRows = (rows: Row[]) => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

function bigQueryText(sql: string): string {
  return compileSandboxQuery(logsAll, sql, bigquery).sql;
}

/** The text after the endpoint CTEs `sql` reads: the caller's own CTEs (`, name AS (...)`) and SELECT. */
function afterCtes(text: string, sql: string): string {
  const read = endpointCtesText(logsAll, endpointCtesRead(logsAll, sql), bigquery);
  expect(text.startsWith(read), 'the text starts with the endpoint CTEs it reads').toBe(true);
  if (read) expect([' ', ','], 'the endpoint CTEs end where a CTE ends').toContain(text[read.length]);
  return text.slice(read.length).trimStart();
}

beforeAll(async () => {
  const registry = await loadRegistry(SHIPPED_ENDPOINTS, { dialect: bigquery, sources: sourceNames() });
  logsAll = registry.find('logs.all')!;
  ctes = endpointCtesText(logsAll, logsAll.statement.with.map((cte) => cte.name), bigquery);
  expect(ctes).toMatch(/^WITH /);
  const fixtures = YAML.parse(readFileSync(FOLDER + 'fixture.yaml', 'utf8')) as Fixtures;
  svc = await startTestService({ fixtures, clock: () => new Date(NOW) });
});

afterAll(async () => {
  await svc?.close();
  if (!UPDATE) return;
  writeFileSync(CTES_FILE, ctes + '\n');
  for (const { file, cases } of suites) {
    const texts = cases.map((c) => {
      try {
        return afterCtes(bigQueryText(c.sql), c.sql);
      } catch {
        return undefined;
      }
    });
    writeFileSync(FOLDER + file, withGoldenTexts(readFileSync(FOLDER + file, 'utf8'), texts));
  }
});

/**
 * The file with each case's `bigquery` line set to its text (or removed where the generator
 * refuses the query). An edit of lines, not a re-serialisation: comments, block scalars and
 * layout stay exactly as written.
 */
function withGoldenTexts(text: string, texts: readonly (string | undefined)[]): string {
  const items = (YAML.parseDocument(text, YAML_OPTIONS).contents as YAML.YAMLSeq).items as YAML.YAMLMap[];
  const lines = text.split('\n');
  const lineOf = (offset: number) => text.slice(0, offset).split('\n').length - 1;
  for (let index = items.length - 1; index >= 0; index--) {
    const [start, end] = [lineOf(items[index]!.range![0]), lineOf(items[index]!.range![1])];
    const span = lines.slice(start, end).filter((line) => !line.startsWith('  bigquery:'));
    let last = span.length - 1;
    while (last > 0 && (span[last]!.trim() === '' || span[last]!.startsWith('#'))) last--;
    const golden = texts[index] === undefined ? [] : [`  ${YAML.stringify({ bigquery: texts[index] }, { lineWidth: 0 }).trimEnd()}`];
    lines.splice(start, end - start, ...span.slice(0, last + 1), ...golden, ...span.slice(last + 1));
  }
  return lines.join('\n');
}

/** docs/clients.md's figures as the case files say they are. */
function figuresSection(): string {
  const running = (cases: readonly CorpusCase[], mark: 'pending' | 'pending_bigquery') => cases.filter((c) => !c[mark]).length;
  const lines = [
    `${allCases.length} queries; ${running(allCases, 'pending')} run on the embedded DuckDB with BigQuery's answer; ${running(allCases, 'pending_bigquery')} compile for BigQuery.`,
    '',
    '| corpus file | queries | run on DuckDB | compile for BigQuery |',
    '|---|---|---|---|',
    ...suites.map(({ file, cases }) => `| \`${file}\` | ${cases.length} | ${running(cases, 'pending')} | ${running(cases, 'pending_bigquery')} |`),
  ];
  const reasons = new Map<string, number>();
  for (const reason of allCases.flatMap((c) => c.pending?.split('; ') ?? [])) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  if (reasons.size === 0) return [...lines, '', 'Every query runs on both backends.'].join('\n');
  const ranked = [...reasons].sort(([a, m], [b, n]) => n - m || a.localeCompare(b));
  return [
    ...lines,
    '',
    'Why the others do not run yet (a query may have several reasons):',
    '',
    '| reason | queries |',
    '|---|---|',
    ...ranked.map(([reason, n]) => `| ${reason.replaceAll('|', '\\|')} | ${n} |`),
  ].join('\n');
}

describe('client corpus', () => {
  it('has at least 150 queries, with unique names, each saying where it comes from', () => {
    expect(allCases.length).toBeGreaterThanOrEqual(150);
    const names = allCases.map((c) => c.name);
    expect(names.length).toBe(new Set(names).size);
    expect(allCases.filter((c) => !c.from || !c.sql || !Array.isArray(c.rows)).map((c) => c.name)).toEqual([]);
  });

  it('docs/clients.md shows its figures', () => {
    const text = readFileSync(DOCS, 'utf8');
    const [begin, end] = [text.indexOf(DOCS_BEGIN), text.indexOf(DOCS_END)];
    expect(begin).toBeGreaterThan(-1);
    expect(end).toBeGreaterThan(begin);
    const expected = `${DOCS_BEGIN}\n${figuresSection()}\n${DOCS_END}`;
    if (process.env.DOCS_UPDATE === '1') writeFileSync(DOCS, text.slice(0, begin) + expected + text.slice(end + DOCS_END.length));
    else expect(text.slice(begin, end + DOCS_END.length)).toBe(expected);
  });

  it('the endpoint CTEs BigQuery texts start with (all nine here) are the golden ones', () => {
    if (!UPDATE) expect(ctes + '\n').toBe(readFileSync(CTES_FILE, 'utf8'));
  });
});

for (const { file, cases } of suites) {
  describe(file, () => {
    for (const c of cases) {
      (c.pending ? it.fails : it)(`${c.name} (DuckDB rows)`, async () => {
        // As Studio sends them: a GET with the SQL and logs.all's parameters in the query string.
        const { status, body } = await svc.call(queryPath('logs.all', { project: 'alpha', ...c.params, sql: c.sql }));
        expect(status, JSON.stringify(body)).toBe(200);
        const rows = body.result as Row[];
        const expected = wire(c.rows) as Row[];
        expect(c.unordered ? sortRows(rows) : rows).toEqual(c.unordered ? sortRows(expected) : expected);
      });
      (c.pending_bigquery ? it.fails : it)(`${c.name} (BigQuery text)`, () => {
        const text = afterCtes(bigQueryText(c.sql), c.sql);
        if (!UPDATE) expect(text).toBe(c.bigquery);
      });
    }
  });
}

/**
 * The same queries with PII redaction on (the header): each still runs, with the strings it reads
 * redacted where it reads them (docs/redaction.md), and no address of the fixture leaves, on
 * DuckDB; each compiles for BigQuery too. Answers that read an address differ, as they must.
 */
describe('with PII redaction on', () => {
  const ADDRESSES = /\b10\.0\.0\.\d\b/;
  for (const c of allCases.filter((one) => !one.pending)) {
    it(`${c.name} runs and shows no address`, async () => {
      const { status, body } = await svc.call(queryPath('logs.all', { project: 'alpha', ...c.params, sql: c.sql }), { 'SVC-ENDPOINT-REDACT-PII': 'true' });
      expect(status, JSON.stringify(body)).toBe(200);
      expect(JSON.stringify(body)).not.toMatch(ADDRESSES);
      if (!c.pending_bigquery) compileSandboxQuery(logsAll, c.sql, bigquery, { redact: true });
    });
  }
});
