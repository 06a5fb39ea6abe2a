/**
 * The static checks of pipeline steps 2-3 (analyse, compile) on endpoint files: every problem
 * carries a message that says what is wrong and the file line where it is.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEndpointFile } from '../../../src/config/endpoint-file.js';
import { BUILT_IN_SOURCES, sourceNames } from '../../../src/config/sources.js';
import { compileEndpoint, type CompileContext } from '../../../src/engine/compile/compile.js';
import { loadRegistry, type Registry } from '../../../src/engine/serve/registry.js';
import type { Problem } from '../../../src/core/types.js';
import { duckDbDialect } from '../../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../../src/sql/generator/generate.js';
import { endpointText as endpointFile, lineOf } from '../../support/endpoint-text.js';
import { SHIPPED_ENDPOINTS } from '../../support/service.js';

const sources = sourceNames(BUILT_IN_SOURCES);
const context: CompileContext = { dialect: duckDbDialect(sources), sources };

let nameCounter = 0;
/** Each file gets its own name. */
function endpointText(params: string[], query: string[], name = `static.case-${++nameCounter}`): string {
  return endpointFile(name, params, query);
}

function compileText(text: string, file = 'case.yaml') {
  return compileEndpoint({ file, ...parseEndpointFile(text, file) }, context);
}

const PROJECT = 'project: { type: string, required: true }';

/** Each case: a file, and the problems it must produce as [line needle, message fragment]. */
const CASES: Record<string, { text: string; expected: [string, string][] }> = {
  'two-statements.yaml': {
    text: endpointText([], ['select 1 as a;', 'select 2 as b']),
    expected: [['select 1 as a;', 'expected exactly one SELECT statement, found 2']],
  },
  'insert.yaml': {
    text: endpointText([], ["insert into `cloudflare.logs.prod` (id) values ('x')"]),
    expected: [['insert into', 'only a read-only SELECT is allowed, found INSERT']],
  },
  'delete.yaml': {
    text: endpointText([], ['delete from `cloudflare.logs.prod` where true']),
    expected: [['delete from', 'only a read-only SELECT is allowed, found DELETE']],
  },
  'create.yaml': {
    text: endpointText([], ['create table copied as', 'select * from `cloudflare.logs.prod`']),
    expected: [['create table', 'only a read-only SELECT is allowed, found CREATE']],
  },
  'undeclared-param.yaml': {
    text: endpointText([PROJECT], ['select t.id', 'from `cloudflare.logs.prod` as t', 'where t.project = @projct']),
    expected: [
      ['@projct', '@projct is used in the query but not declared in params (did you mean "project"?)'],
      // A declared-but-unused param is reported where it is declared.
      ['project: {', 'param "project" is declared but the query never uses @project (did you mean "projct"?)'],
    ],
  },
  'unused-param.yaml': {
    text: endpointText([PROJECT, 'limit: { type: integer }'], ['select t.id', 'from `cloudflare.logs.prod` as t', 'where t.project = @project']),
    expected: [['limit: {', 'param "limit" is declared but the query never uses @limit']],
  },
  'unknown-table.yaml': {
    text: endpointText([], ['select t.id', 'from `cloudflare.logs.prd` as t']),
    expected: [['cloudflare.logs.prd', 'table `cloudflare.logs.prd` is neither a known source nor a CTE (did you mean "cloudflare.logs.prod"?)']],
  },
  'unknown-cte.yaml': {
    text: endpointText([], ['with edge_logs as (select 1 as a)', 'select a', 'from edge_log']),
    expected: [['from edge_log', 'table `edge_log` is neither a known source nor a CTE (did you mean "edge_logs"?)']],
  },
  'unknown-table-in-subquery.yaml': {
    text: endpointText([], ['select a', 'from (', '  select t.id as a', '  from `postgres.log` as t', ')']),
    expected: [['postgres.log`', 'table `postgres.log` is neither a known source nor a CTE (did you mean "postgres.logs"?)']],
  },
  'syntax-error.yaml': {
    text: endpointText([], ['select t.id', 'from `cloudflare.logs.prod` as t', 'where t.id = = 1']),
    expected: [['= = 1', 'SQL syntax error at line 3, column 14: found "=", expected an expression']],
  },
  'unsupported-function.yaml': {
    text: endpointText([], ['with x as (', '  select t.id', '  from `cloudflare.logs.prod` as t', '  where st_geogpoint(1, 2) is not null', ')', 'select id from x']),
    expected: [['st_geogpoint', 'unsupported SQL: ST_GEOGPOINT (cannery has no GEOGRAPHY type) (the duckdb backend cannot run it)']],
  },
};

describe('static checks through loadRegistry', () => {
  let dir: string;
  let registry: Registry;
  const good = endpointText([PROJECT], ['select t.id', 'from `cloudflare.logs.prod` as t', 'where t.project = @project'], 'static.good');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cannery-static-'));
    for (const [name, { text }] of Object.entries(CASES)) await writeFile(join(dir, name), text);
    await writeFile(join(dir, 'good.yaml'), good);
    registry = await loadRegistry(dir, context);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const problemsOf = (name: string): Problem[] => registry.problems.filter((problem) => problem.file === join(dir, name));

  it.each(Object.keys(CASES))('%s: each problem with its message and file line', (name) => {
    const { text, expected } = CASES[name]!;
    const problems = problemsOf(name);
    expect(problems.map((problem) => ({ line: problem.line, message: problem.message }))).toEqual(
      expected.map(([needle, fragment]) => ({ line: lineOf(text, needle), message: expect.stringContaining(fragment) })),
    );
    // SQL problems point at the query, except an unused param, which points at its declaration.
    for (const problem of problems) expect(problem.field).toMatch(problem.message.includes('is declared but') ? /^params\./ : /^query$/);
  });

  it('a file with problems is not served; the good one is', () => {
    expect(registry.endpoints.map((endpoint) => endpoint.definition.name)).toEqual(['static.good']);
    expect(registry.find('static.good')).toBeDefined();
  });

  it('every problem belongs to a case file', () => {
    const files = new Set(registry.problems.map((problem) => problem.file));
    expect([...files].sort()).toEqual(Object.keys(CASES).map((name) => join(dir, name)).sort());
  });
});

describe('static checks through compileEndpoint', () => {
  it('the shipped endpoints compile without problems', async () => {
    const registry = await loadRegistry(SHIPPED_ENDPOINTS, context);
    expect(registry.problems).toEqual([]);
    expect(registry.endpoints.map((endpoint) => endpoint.definition.name).sort()).toEqual(['logs.all', 'usage.api-counts']);
  });

  it('a compiled endpoint records its params, CTEs and sources and gets the row cap', () => {
    const { endpoint, problems } = compileText(
      endpointText([PROJECT], ['with e as (', '  select t.id from `cloudflare.logs.prod` as t where t.project = @project', ')', 'select id from e']),
    );
    expect(problems).toEqual([]);
    expect(endpoint!.analysis).toEqual({ params: ['project'], ctes: ['e'], sources: ['cloudflare.logs.prod'] });
    expect(endpoint!.sqlParameters).toEqual(['project']);
    expect(endpoint!.sql).toMatch(/LIMIT 100$/);
  });

  it('a trailing semicolon is still one statement', () => {
    expect(compileText(endpointText([], ['select 1 as a;'])).problems).toEqual([]);
  });

  it('three statements are counted', () => {
    const { problems } = compileText(endpointText([], ['select 1 as a;', 'select 2 as b;', 'select 3 as c']));
    expect(problems.map((problem) => problem.message)).toEqual(['expected exactly one SELECT statement, found 3']);
  });

  it.each([
    ['UPDATE', "update `cloudflare.logs.prod` set id = 'x' where true"],
    ['DROP', 'drop table `cloudflare.logs.prod`'],
  ])('%s is refused', (kind, sql) => {
    const { problems, endpoint } = compileText(endpointText([], [sql]));
    expect(endpoint).toBeUndefined();
    expect(problems.map((problem) => problem.message)).toEqual([`only a read-only SELECT is allowed, found ${kind}`]);
  });

  it('a param used only inside a CTE counts as used; a misspelt one there is reported at its line', () => {
    const text = endpointText(['p: { type: string }'], ['with x as (', '  select t.id', '  from `cloudflare.logs.prod` as t', '  where t.project = @pp', ')', 'select id from x']);
    const { problems } = compileText(text);
    expect(problems[0]).toMatchObject({ line: lineOf(text, '@pp'), message: expect.stringContaining('@pp is used in the query but not declared in params (did you mean "p"?)') });
  });

  it('a misspelt table in a JOIN is reported at its line', () => {
    const text = endpointText([], ['select t.id', 'from `cloudflare.logs.prod` as t', 'join `gotrue.logs.prd` as a on a.id = t.id']);
    expect(compileText(text).problems).toEqual([
      expect.objectContaining({ line: lineOf(text, 'gotrue.logs.prd'), message: expect.stringContaining('(did you mean "gotrue.logs.prod"?)') }),
    ]);
  });

  it('a table far from every name gets no suggestion', () => {
    const { problems } = compileText(endpointText([], ['select 1 as a from `warehouse.orders`']));
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).not.toContain('did you mean');
  });

  it.each([
    ['CAST with FORMAT', ['select t.id,', "  cast(t.timestamp as string format 'IYYY') as y", 'from `cloudflare.logs.prod` as t'], 'format', 'unsupported SQL: CAST ... FORMAT with format element IYYY'],
    ['SAFE.NET.REG_DOMAIN', ['select', '  1 as a,', '  safe.net.reg_domain(t.event_message) as j', 'from `cloudflare.logs.prod` as t'], 'reg_domain', 'unsupported SQL: NET.REG_DOMAIN (it needs the public suffix list'],
    ['an unsupported cast', ['select cast(t.id as geography) as b', 'from `cloudflare.logs.prod` as t'], 'cast(', 'unsupported SQL: CAST to GEOGRAPHY'],
  ])('the generator names %s', (_label, query, needle, fragment) => {
    const text = endpointText([], query);
    const { problems } = compileText(text);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toContain(fragment);
    expect(problems[0]!.message).toContain('(the duckdb backend cannot run it)');
    expect(problems[0]!.line).toBe(lineOf(text, needle));
  });

  it('schema problems stop before the SQL is looked at', () => {
    const text = endpointText([], ['select nonsense nonsense nonsense']).replace('max_rows: 100', 'max_rows: 0');
    const { problems } = compileText(text);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.line).toBe(lineOf(text, 'max_rows'));
  });
});
