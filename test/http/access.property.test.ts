/**
 * Issue 26: no answer outside a credential's scope. The real server on DuckDB with three
 * projects' rows in all nine sources; random credentials (keys of the keys file, and HS256 tokens
 * with one or two scopes) over random requests: an endpoint (in the scope or not, by name or by
 * UUID), a project that is absent, empty, fixed, another project or any text, sandbox SQL over
 * any CTE, by GET or POST.
 *
 * The oracle reads only the credential's scopes, not how the service applies them: an answer
 * (200) needs a scope that names the endpoint; when every such scope fixes `project`, every row
 * is of a fixed project (and of the one sent, when one was sent), and a count is that project's
 * count. Conversely a request that sends a fixed value, or none, for an endpoint in the scope is
 * never refused, and is answered when the first scope allowing it (the one that fills it in) fixes
 * the project. Never a 5xx.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyDigest } from '../../src/access/keys.js';
import { signToken } from '../../src/access/tokens.js';
import type { KeyEntry } from '../../src/config/keys-file.js';
import { startTestService, type TestService } from '../support/service.js';
import { LOGS_ALL_ID, NOW, PROJECTS, projectOfId, rowsOf, SOURCES, tenantEndpoints, tenantFixtures } from './tenant-fixtures.js';

const SECRET = `secret-${randomBytes(24).toString('hex')}`;

interface Scope {
  endpoint: string;
  params: Record<string, string>;
}

/** What an endpoint name or id in a scope names. */
const NAMED: Record<string, string> = { '*': '*', 'logs.all': 'logs.all', [LOGS_ALL_ID]: 'logs.all', 'usage.api-counts': 'usage.api-counts', 'plain.one': 'plain.one' };
const SCOPE_ENDPOINTS = Object.keys(NAMED);
/** Which endpoints take `project`. */
const TAKES_PROJECT = new Set(['logs.all', 'usage.api-counts']);

const fixedProject = fc.option(fc.constantFrom(...PROJECTS), { nil: undefined });
const scope: fc.Arbitrary<Scope> = fc.record({ endpoint: fc.constantFrom(...SCOPE_ENDPOINTS), project: fixedProject }).map(
  ({ endpoint, project }): Scope => ({ endpoint, params: project === undefined ? {} : { project } }),
);

/** One key per scope of the file: every endpoint choice with every fixed project or none. */
const KEYS: { key: string; scope: Scope; entry: KeyEntry }[] = SCOPE_ENDPOINTS.flatMap((endpoint, index) =>
  [undefined, ...PROJECTS].map((project, inner) => {
    const key = randomBytes(24).toString('base64url');
    const params: Record<string, string> = project === undefined ? {} : { project };
    return { key, scope: { endpoint, params }, entry: { name: `key-${index}-${inner}`, sha256: keyDigest(key), endpoints: [endpoint], params } };
  }),
);

type Credential = { kind: 'key'; index: number } | { kind: 'token'; scopes: Scope[] };

const credential: fc.Arbitrary<Credential> = fc.oneof(
  fc.nat({ max: KEYS.length - 1 }).map((index): Credential => ({ kind: 'key', index })),
  fc.array(scope, { minLength: 1, maxLength: 2 }).map((scopes): Credential => ({ kind: 'token', scopes })),
);

interface Request {
  endpoint: 'logs.all' | 'usage.api-counts' | 'plain.one';
  byId: boolean;
  /** undefined: not sent. */
  project: string | undefined;
  sql: { cte: string; count: boolean } | undefined;
  post: boolean;
}

const project = fc.option(fc.oneof(fc.constantFrom(...PROJECTS, '', 'ABC', '.*', 'abc|xyz', 'abc '), fc.string({ maxLength: 8 })), { nil: undefined });
const request: fc.Arbitrary<Request> = fc.record({
  endpoint: fc.constantFrom('logs.all' as const, 'usage.api-counts' as const, 'plain.one' as const),
  byId: fc.boolean(),
  project,
  sql: fc.option(fc.record({ cte: fc.constantFrom(...SOURCES.map((source) => source.cte)), count: fc.boolean() }), { nil: undefined }),
  post: fc.boolean(),
});

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({
    fixtures: tenantFixtures(),
    endpoints: await tenantEndpoints(),
    clock: () => NOW,
    access: { keys: KEYS.map(({ entry }) => entry), tokens: { secret: SECRET } },
  });
}, 120_000);

afterAll(async () => {
  await svc?.close();
});

async function presented(given: Credential): Promise<{ secret: string; scopes: Scope[] }> {
  if (given.kind === 'key') return { secret: KEYS[given.index]!.key, scopes: [KEYS[given.index]!.scope] };
  return { secret: await signToken(SECRET, { scopes: given.scopes, ttlSeconds: 600 }), scopes: given.scopes };
}

async function send(secret: string, sent: Request): Promise<{ status: number; body: any }> {
  const params: Record<string, string> = {};
  if (sent.project !== undefined) params.project = sent.project;
  if (sent.endpoint === 'usage.api-counts') params.interval = 'hourly';
  if (sent.endpoint === 'logs.all' && sent.sql) params.sql = sent.sql.count ? `select count(*) as n from ${sent.sql.cte}` : `select id from ${sent.sql.cte}`;
  const name = sent.endpoint === 'logs.all' && sent.byId ? LOGS_ALL_ID : sent.endpoint;
  const path = `${svc.url}/api/endpoints/query/${name}`;
  const response = sent.post
    ? await fetch(path, { method: 'POST', headers: { 'x-api-key': secret, 'content-type': 'application/json' }, body: JSON.stringify(params) })
    : await fetch(`${path}?${new URLSearchParams(params)}`, { headers: { authorization: `Bearer ${secret}` } });
  return { status: response.status, body: await response.json() };
}

/** The projects an answer's rows belong to, and its counts: what the oracle checks against the scope. */
function projectsIn(sent: Request, body: any): { projects: string[]; counts: number[] } {
  const rows: any[] = body.result;
  if (sent.endpoint === 'usage.api-counts') return { projects: [], counts: [rows.reduce((sum, row) => sum + row.total_rest_requests, 0)] };
  if (sent.endpoint === 'plain.one') return { projects: [], counts: [] };
  if (sent.sql?.count) return { projects: [], counts: rows.map((row) => row.n) };
  return { projects: rows.map((row) => projectOfId(row.id)), counts: [] };
}

describe('scoped credentials over random requests', () => {
  it('no answer outside the scope; never a refusal of what it allows; never a 5xx', async () => {
    let answered = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(credential, request, async (given, sent) => {
        const { secret, scopes } = await presented(given);
        const answer = await send(secret, sent);
        expect(answer.status).toBeLessThan(500);
        const naming = scopes.filter((one) => NAMED[one.endpoint] === '*' || NAMED[one.endpoint] === sent.endpoint);
        // Scopes that could limit this endpoint: a fixed project only limits one that takes it.
        const usable = naming.filter((one) => one.params.project === undefined || TAKES_PROJECT.has(sent.endpoint));
        const sentProject = sent.project === '' ? undefined : sent.project;
        const allowing = usable.filter((one) => one.params.project === undefined || sentProject === undefined || sentProject === one.params.project);
        if (answer.status === 200) {
          answered += 1;
          expect(usable.length).toBeGreaterThan(0);
          if (usable.every((one) => one.params.project !== undefined)) {
            const fixed = new Set(usable.map((one) => one.params.project!));
            if (sentProject !== undefined) expect(fixed.has(sentProject)).toBe(true);
            const allowed = sentProject === undefined ? fixed : new Set([sentProject]);
            const { projects, counts } = projectsIn(sent, answer.body);
            for (const row of projects) expect(allowed.has(row)).toBe(true);
            for (const count of counts) expect([...allowed].map(rowsOf)).toContain(count);
          }
          return;
        }
        expect(answer.body.result).toBeUndefined();
        if (answer.status === 403) {
          refused += 1;
          expect(allowing.length).toBe(0);
        }
        // A fixed value sent or left out, on an endpoint in the scope, is never refused for the scope;
        // where the first scope that allows it fixes the project, the request lacks nothing.
        if (allowing.length > 0) expect(answer.status).not.toBe(403);
        expect(allowing[0]?.params.project).toBeUndefined();
      }),
      { numRuns: 300, interruptAfterTimeLimit: 40_000 },
    );
    // Both sides of the scope were reached.
    expect(answered).toBeGreaterThan(20);
    expect(refused).toBeGreaterThan(20);
  }, 120_000);
});
