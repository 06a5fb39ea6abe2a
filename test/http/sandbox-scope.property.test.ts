/**
 * Issue 38: a caller's sandbox SQL never answers a row outside its credential's scope. The real
 * server on DuckDB with three projects' rows in all nine sources (tenant-fixtures.ts); keys and
 * tokens fixed to one project; SQL over logs.all and usage.api-counts that names the endpoint's
 * CTEs, the source tables and DuckDB's catalog, and defines CTEs of those names too: read before
 * their definition, in their own body, from nested subqueries and inner WITHs that shadow outer
 * names, spelled with backticks, in other cases and as dotted paths.
 *
 * The oracle reads only the scope: an answer (200) of logs.all holds only rows whose id names the
 * fixed project (or a literal the SQL wrote itself); one of usage.api-counts counts exactly the
 * project's requests. Anything else is a 400 (never a 5xx). The reproductions of the issue come
 * first, each refused naming the table it tried to read.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyDigest } from '../../src/access/keys.js';
import { signToken } from '../../src/access/tokens.js';
import { startTestService, type TestService } from '../support/service.js';
import { NOW, PROJECTS, projectOfId, rowsOf, SOURCES, tenantEndpoints, tenantFixtures } from './tenant-fixtures.js';

const SECRET = `secret-${randomBytes(24).toString('hex')}`;
const ENDPOINTS = ['logs.all', 'usage.api-counts'] as const;
type Endpoint = (typeof ENDPOINTS)[number];

/** One key per project, fixed to it on both endpoints. */
const KEYS = PROJECTS.map((project) => ({ project, key: randomBytes(24).toString('base64url') }));

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({
    fixtures: tenantFixtures(),
    endpoints: await tenantEndpoints(),
    clock: () => NOW,
    access: {
      keys: KEYS.map(({ project, key }) => ({ name: `key-${project}`, sha256: keyDigest(key), endpoints: [...ENDPOINTS], params: { project } })),
      tokens: { secret: SECRET },
    },
  });
}, 120_000);

afterAll(async () => {
  await svc?.close();
});

async function send(secret: string, endpoint: Endpoint, sql: string, project?: string): Promise<{ status: number; body: any }> {
  const params: Record<string, string> = { sql };
  if (project !== undefined) params.project = project;
  if (endpoint === 'usage.api-counts') params.interval = 'hourly';
  const response = await fetch(`${svc.url}/api/endpoints/query/${endpoint}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify(params),
  });
  return { status: response.status, body: await response.json() };
}

/** Whether an answer holds only what the project's scope allows. */
function inScope(endpoint: Endpoint, project: string, rows: any[]): boolean {
  if (endpoint === 'usage.api-counts') return rows.length === 1 && rows[0].n === rowsOf(project);
  return rows.every((row) => typeof row.id === 'string' && [project, 'lit'].includes(projectOfId(row.id)));
}

const KEY_ABC = KEYS[0]!;

describe('the reproductions of issue 38, with a key fixed to one project', () => {
  it.each([
    ['logs.all', 'with a as (select project, count(*) as n from `cloudflare.logs.prod` group by project), `cloudflare.logs.prod` as (select 1 as x) select * from a', 'cloudflare.logs.prod'],
    ['logs.all', 'with `gotrue.logs.prod` as (select project, event_message from `gotrue.logs.prod` where project != @project limit 3) select * from `gotrue.logs.prod`', 'gotrue.logs.prod'],
    ['logs.all', 'with duckdb_databases as (select database_name, path from duckdb_databases) select * from duckdb_databases', 'duckdb_databases'],
    ['logs.all', 'with sqlite_master as (select sql from sqlite_master) select * from sqlite_master', 'sqlite_master'],
    ['logs.all', 'select * from (with a as (select id from `postgres.logs`), `postgres.logs` as (select 1 as x) select * from a)', 'postgres.logs'],
    ['logs.all', 'select id from edge_logs where id in (with `auth_logs` as (select id from `gotrue.logs.prod`) select id from auth_logs) or true', 'gotrue.logs.prod'],
    ['usage.api-counts', 'with a as (select count(*) as n from `cloudflare.logs.prod`), `cloudflare.logs.prod` as (select 1 as x) select * from a', 'cloudflare.logs.prod'],
    ['usage.api-counts', 'with `cloudflare.logs.prod` as (select * from `cloudflare.logs.prod`) select count(*) as n from `cloudflare.logs.prod`', 'cloudflare.logs.prod'],
    ['usage.api-counts', 'select (with requests as (select * from requests) select count(*) from requests) as n', undefined],
  ] as const)('%s: %s', async (endpoint, sql, table) => {
    const { status, body } = await send(KEY_ABC.key, endpoint, sql);
    if (table === undefined) {
      // A nested CTE that takes an endpoint CTE's name and reads it: the endpoint's, in scope.
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.result).toEqual([{ n: rowsOf('abc') }]);
      return;
    }
    expect(status, JSON.stringify(body)).toBe(400);
    expect(body.error.code).toBe('sandbox_violation');
    expect(body.error.message).toContain(`table \`${table}\``);
    expect(body).not.toHaveProperty('result');
  });
});

// ---------------------------------------------------------------------------------------------
// Generated SQL. A choice tape drives the builder: fast-check shrinks it toward zeros, each pick's
// first option, and an exhausted tape picks those too, so a failure shrinks to a short query. The
// odds favour what leaked: a CTE named like a source or a catalog view, read in its own body or
// before it. Against the code before the fix, 1,200 runs found a leak after 27, 30 and 236 runs.

class Tape {
  private at = 0;
  constructor(private readonly numbers: readonly number[]) {}
  pick<T>(options: readonly T[]): T {
    return options[(this.numbers[this.at++] ?? 0) % options.length]!;
  }
}

/** An identifier in one of the spellings BigQuery reads as the same name. */
function spelled(tape: Tape, name: string): string {
  const simple = /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);
  const parts = name.split('.');
  const spellings = [
    simple ? name : `\`${name}\``,
    `\`${name.toUpperCase()}\``,
    simple ? name.toUpperCase() : `\`${name}\``,
    // A dotted name as a path of quoted parts, or unquoted where each part is an identifier.
    parts.length > 1 ? parts.map((part) => `\`${part}\``).join('.') : `\`${name}\``,
    parts.length > 1 && parts.every((part) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(part)) ? name : `\`${name}\``,
  ];
  return tape.pick(spellings);
}

/** A CTE's name where it is defined: one identifier, quoted or not, in any case. */
function defined(tape: Tape, name: string): string {
  const simple = /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);
  return tape.pick([simple ? name : `\`${name}\``, `\`${name.toUpperCase()}\``, simple ? name.toUpperCase() : `\`${name}\``]);
}

const CATALOG = ['duckdb_databases', 'duckdb_tables', 'sqlite_master', 'duckdb_settings', 'information_schema.tables', 'pg_catalog.pg_class'];
const TABLES = SOURCES.map((source) => source.table);
/** A name a caller's CTE takes: a plain one, a source's (most often), the catalog's, the endpoint's (shadowing it). */
function cteName(tape: Tape, endpointCtes: readonly string[]): string {
  return tape.pick([tape.pick(['a', 'b']), tape.pick(TABLES), tape.pick(TABLES), tape.pick(TABLES), tape.pick(['duckdb_databases', 'sqlite_master']), tape.pick(endpointCtes)]);
}

interface Context {
  endpoint: Endpoint;
  /** The endpoint's CTEs, read first most often. */
  endpointCtes: readonly string[];
  /** Names of CTEs around this point of the text: defined before, the one being defined, or after it. */
  near: readonly string[];
  depth: number;
  aliases: { next: number };
}

/** A FROM item that yields `id` (logs.all) or `path` (usage.api-counts), with an alias. */
function relation(tape: Tape, context: Context): string {
  const alias = `r${context.aliases.next++}`;
  const column = context.endpoint === 'logs.all' ? 'id' : 'path';
  const kinds = context.depth >= 3 ? ['name'] : ['name', 'name', 'name', 'derived', 'with', 'filtered'];
  switch (tape.pick(kinds)) {
    case 'derived':
      return `(select ${column} from ${relation(tape, deeper(context))}) as ${alias}`;
    case 'filtered':
      return `(select ${column} from ${relation(tape, deeper(context))} where ${column} in (select ${column} from ${relation(tape, deeper(context))})) as ${alias}`;
    case 'with':
      return `(${withQuery(tape, deeper(context), `select ${column} from`)}) as ${alias}`;
    default: {
      // A name around, most often (the ones a forward or self reference takes); a source's or
      // the catalog's seldom, since the one plain escape it makes is refused whatever else it holds.
      const near = context.near.length ? context.near : context.endpointCtes;
      const name = tape.pick([
        tape.pick(context.endpointCtes),
        tape.pick(context.endpointCtes),
        ...Array.from({ length: 4 }, () => tape.pick(near)),
        tape.pick([...TABLES, ...CATALOG]),
      ]);
      return `${spelled(tape, name)} as ${alias}`;
    }
  }
}

function deeper(context: Context): Context {
  return { ...context, depth: context.depth + 1 };
}

/** A CTE's body: its rows pass through (usage.api-counts counts them), or a literal row (logs.all). */
function body(tape: Tape, context: Context): string {
  const column = context.endpoint === 'logs.all' ? 'id' : 'path';
  const options = [`select * from ${relation(tape, context)}`, `select ${column} from ${relation(tape, context)}`];
  if (context.endpoint === 'logs.all') options.push(`select 'lit-${context.aliases.next++}' as id`);
  return tape.pick(options);
}

/** `WITH ... <select> <relation>`: one to three CTEs whose bodies may read any name around them. */
function withQuery(tape: Tape, context: Context, select: string): string {
  const names = [...new Set(Array.from({ length: tape.pick([1, 2, 3]) }, () => cteName(tape, context.endpointCtes)))];
  // Each body is written with every name of its WITH near, before it, its own and after it, and
  // more often than a name from around the WITH: forward and self references are what is tried.
  const near = [...names, ...names, ...context.near];
  const ctes = names.map((name) => `${defined(tape, name)} as (${body(tape, { ...context, near })})`);
  return `with ${ctes.join(', ')} ${select} ${relation(tape, { ...context, near })}`;
}

function query(tape: Tape, endpoint: Endpoint): string {
  const endpointCtes = endpoint === 'logs.all' ? SOURCES.map((source) => source.cte) : ['requests', 'bucketed'];
  const context: Context = { endpoint, endpointCtes, near: [], depth: 0, aliases: { next: 0 } };
  const select =
    endpoint === 'usage.api-counts' ? 'select count(*) as n from' : tape.pick(['select id from', 'select * from', 'select id from']);
  const plain = tape.pick([false, true, false, false]);
  const main = plain ? `${select} ${relation(tape, context)}` : withQuery(tape, context, select);
  return endpoint === 'logs.all' && select === 'select id from' && tape.pick([false, true]) ? `${main} union all select id from ${relation(tape, context)}` : main;
}

type Credential = { kind: 'key'; index: number } | { kind: 'token'; project: string; endpoint: string };

const credential: fc.Arbitrary<Credential> = fc.oneof(
  fc.nat({ max: KEYS.length - 1 }).map((index): Credential => ({ kind: 'key', index })),
  fc.record({ project: fc.constantFrom(...PROJECTS), endpoint: fc.constantFrom('*', ...ENDPOINTS) }).map((scope): Credential => ({ kind: 'token', ...scope })),
);

async function presented(given: Credential): Promise<{ secret: string; project: string }> {
  if (given.kind === 'key') return { secret: KEYS[given.index]!.key, project: KEYS[given.index]!.project };
  const secret = await signToken(SECRET, { scopes: [{ endpoint: given.endpoint, params: { project: given.project } }], ttlSeconds: 600 });
  return { secret, project: given.project };
}

describe('sandbox SQL with shadowing, forward and self references, nesting and quoting, under a scoped credential', () => {
  it('answers only rows of the credential\'s project, or refuses with a 400', async () => {
    let answered = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(
        credential,
        fc.constantFrom(...ENDPOINTS),
        fc.array(fc.nat(), { minLength: 40, maxLength: 80 }),
        fc.boolean(),
        async (given, chosen, choices, sendProject) => {
          const { secret, project } = await presented(given);
          // A token scoped to the other endpoint may not call this one: use the one it names.
          const endpoint = given.kind === 'token' && given.endpoint !== '*' ? (given.endpoint as Endpoint) : chosen;
          const sql = query(new Tape(choices), endpoint);
          const { status, body } = await send(secret, endpoint, sql, sendProject ? project : undefined);
          if (status === 200) {
            answered += 1;
            expect(inScope(endpoint, project, body.result), `${sql}\n${JSON.stringify(body).slice(0, 400)}`).toBe(true);
            return;
          }
          refused += 1;
          expect(status, `${sql}\n${JSON.stringify(body)}`).toBe(400);
          expect(body).not.toHaveProperty('result');
          expect(['sandbox_violation', 'invalid_parameter']).toContain(body.error.code);
        },
      ),
      { numRuns: 1200, interruptAfterTimeLimit: 45_000 },
    );
    // Both sides were reached: queries in scope answered, escapes refused.
    expect(answered).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(50);
  }, 180_000);
});
