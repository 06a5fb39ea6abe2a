/**
 * `cannery keys new`, `cannery token` and `cannery serve` with a keys file, on the built CLI: the
 * entry printed is one the keys file reads, for the key printed; the token is one the service
 * verifies; and editing the keys file while serving revokes a key without a restart.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { keyDigest } from '../../src/access/keys.js';
import { parseKeysFile } from '../../src/config/keys-file.js';
import { cannery } from '../support/cannery-cli.js';
import { loadFixtures, SHIPPED_ENDPOINTS } from '../support/service.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { projectOfId, tenantFixtures } from '../http/tenant-fixtures.js';

const SECRET = 'a-secret-for-the-cli-test-0123456789';

/** The key and the entry `keys new` printed. */
function printed(stdout: string): { key: string; entry: string } {
  const key = /shown once[^\n]*\n\n {2}(\S+)\n/.exec(stdout)?.[1];
  const entry = stdout.slice(stdout.indexOf('under keys:\n\n') + 'under keys:\n\n'.length);
  expect(key, stdout).toBeDefined();
  return { key: key!, entry };
}

describe('cannery keys new', () => {
  it('prints a fresh key once and the entry that stores its SHA-256, with the scope given', async () => {
    const run = await cannery(['keys', 'new', 'tenant-abc', '--endpoint', 'logs.all', '--endpoint', 'usage.api-counts', '--param', 'project=abc', '--expires', '2027-01-01T00:00:00Z', '--rate', '10']);
    expect(run.code, run.stderr).toBe(0);
    const { key, entry } = printed(run.stdout);
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const { keys, problems } = parseKeysFile(`keys:\n${entry}`, 'keys.yaml');
    expect(problems).toEqual([]);
    expect(keys).toEqual([
      {
        name: 'tenant-abc',
        sha256: keyDigest(key),
        endpoints: ['logs.all', 'usage.api-counts'],
        params: { project: 'abc' },
        expiresAt: Date.parse('2027-01-01T00:00:00Z'),
        ratePerSecond: 10,
        ingest: [],
      },
    ]);
    // Never the same key twice.
    const again = printed((await cannery(['keys', 'new', 'tenant-abc'])).stdout);
    expect(again.key).not.toBe(key);
    expect(parseKeysFile(`keys:\n${again.entry}`, 'keys.yaml').keys).toEqual([{ name: 'tenant-abc', sha256: keyDigest(again.key), endpoints: ['*'], params: {}, ingest: [] }]);
  });

  it('with --ingest alone, prints a key that sends events there and runs no endpoint', async () => {
    const { key, entry } = printed((await cannery(['keys', 'new', 'vector', '--ingest', 'gotrue.logs.prod', '--ingest', 'shop.orders'])).stdout);
    expect(parseKeysFile(`keys:\n${entry}`, 'keys.yaml').keys).toEqual([
      { name: 'vector', sha256: keyDigest(key), endpoints: [], params: {}, ingest: ['gotrue.logs.prod', 'shop.orders'] },
    ]);
  });

  it('takes an expiry as a length of time from now', async () => {
    const before = Date.now();
    const { entry } = printed((await cannery(['keys', 'new', 'trial', '--expires', '30d'])).stdout);
    const expiresAt = parseKeysFile(`keys:\n${entry}`, 'keys.yaml').keys![0]!.expiresAt!;
    expect(expiresAt - before).toBeGreaterThan(30 * 86_400_000 - 60_000);
    expect(expiresAt - before).toBeLessThan(30 * 86_400_000 + 60_000);
  });

  it.each([
    [['keys', 'new'], 'usage: cannery keys new NAME'],
    [['keys', 'old', 'x'], 'usage: cannery keys new NAME'],
    [['keys', 'new', 'has space'], 'a name is 1 to 64 letters'],
    [['keys', 'new', 'a', '--param', 'project'], '--param takes name=value'],
    [['keys', 'new', 'a', '--param', 'p=1', '--param', 'p=2'], '--param p is given twice'],
    [['keys', 'new', 'a', '--rate', '0'], '--rate must be a number of requests per second above 0'],
    [['keys', 'new', 'a', '--expires', 'tomorrow'], '--expires is an ISO 8601 timestamp'],
    [['keys', 'new', 'a', '--expires', '2027-02-30T00:00:00Z'], '--expires is an ISO 8601 timestamp'],
  ])('%j is refused: %s', async (args, message) => {
    const run = await cannery(args);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe('');
  });
});

describe('cannery token', () => {
  it('prints an HS256 token with the scopes, name, rate and expiry asked for', async () => {
    const run = await cannery(['token', '--endpoint', 'logs.all', '--param', 'project=abc', '--ttl', '15m', '--name', 'try-me', '--rate', '5'], { env: { CANNERY_JWT_SECRET: SECRET } });
    expect(run.code, run.stderr).toBe(0);
    const { payload, protectedHeader } = await jwtVerify(run.stdout.trim(), new TextEncoder().encode(SECRET));
    expect(protectedHeader.alg).toBe('HS256');
    expect(payload).toMatchObject({ scopes: [{ endpoint: 'logs.all', params: { project: 'abc' } }], name: 'try-me', rate_per_second: 5 });
    expect(payload.exp! - payload.iat!).toBe(900);
    const sender = await cannery(['token', '--ingest', '*'], { env: { CANNERY_JWT_SECRET: SECRET } });
    expect((await jwtVerify(sender.stdout.trim(), new TextEncoder().encode(SECRET))).payload).toMatchObject({ scopes: [], ingest: ['*'] });
  });

  it('needs CANNERY_JWT_SECRET, and a length of time for --ttl', async () => {
    expect((await cannery(['token'])).stderr).toContain('CANNERY_JWT_SECRET is not set');
    expect((await cannery(['token', '--ttl', 'forever'], { env: { CANNERY_JWT_SECRET: SECRET } })).stderr).toContain('--ttl is a length of time');
    expect((await cannery(['token'], { env: { CANNERY_JWT_SECRET: 'short' } })).stderr).toContain('CANNERY_JWT_SECRET must be at least 32 characters');
  });

  it('mints no token the service would refuse: --ttl at most CANNERY_JWT_MAX_TTL (24h unless set)', async () => {
    const day = await cannery(['token', '--ttl', '24h'], { env: { CANNERY_JWT_SECRET: SECRET } });
    expect(day.code, day.stderr).toBe(0);
    const longer = await cannery(['token', '--ttl', '2d'], { env: { CANNERY_JWT_SECRET: SECRET } });
    expect(longer.code).not.toBe(0);
    expect(longer.stderr).toContain('--ttl 2d is longer than CANNERY_JWT_MAX_TTL (24h)');
    expect(longer.stdout).toBe('');
    const raised = await cannery(['token', '--ttl', '2d'], { env: { CANNERY_JWT_SECRET: SECRET, CANNERY_JWT_MAX_TTL: '7d' } });
    expect(raised.code, raised.stderr).toBe(0);
  });
});

describe('cannery serve with a keys file', () => {
  let dir: string;
  let keysFile: string;
  let serve: ServeProcess;
  const keys: Record<string, string> = {};
  const entry = (name: string, extra = '') => `  - name: ${name}\n    sha256: ${keyDigest(keys[name]!)}\n${extra}`;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cannery-keys-'));
    const db = join(dir, 'db.duckdb');
    await loadFixtures(db, tenantFixtures());
    for (const name of ['tenant-abc', 'tenant-xyz']) keys[name] = printed((await cannery(['keys', 'new', name])).stdout).key;
    keysFile = join(dir, 'keys.yaml');
    await writeFile(keysFile, `keys:\n${entry('tenant-abc', '    params: { project: abc }\n')}${entry('tenant-xyz', '    params: { project: xyz }\n')}`);
    serve = await startServe(['--db', db, '--endpoints', SHIPPED_ENDPOINTS], { CANNERY_KEYS_FILE: keysFile, CANNERY_API_KEYS: '', CANNERY_CONSOLE: 'false', CANNERY_COMPILE_CACHE: 'off' });
  }, 60_000);
  afterAll(async () => {
    await serve?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const status = async (name: string) => (await fetch(`${serve.url}/api/endpoints/query/logs.all`, { headers: { 'x-api-key': keys[name]! } })).status;

  it('serves the keys of the file alone when CANNERY_API_KEYS is empty: no key is generated', async () => {
    expect(serve.stdout()).not.toContain('generated API key');
    const response = await fetch(`${serve.url}/api/endpoints/query/logs.all`, { headers: { 'x-api-key': keys['tenant-abc']! } });
    const body = (await response.json()) as { result: { id: string }[] };
    expect(response.status).toBe(200);
    expect(new Set(body.result.map((row) => projectOfId(row.id)))).toEqual(new Set(['abc']));
  });

  it('revokes a key removed from the file while serving, and keeps the last good keys when an edit has a problem', async () => {
    expect([await status('tenant-abc'), await status('tenant-xyz')]).toEqual([200, 200]);
    await writeFile(keysFile, `keys:\n${entry('tenant-xyz', '    params: { project: xyz }\n')}`);
    await vi.waitFor(async () => expect(await status('tenant-abc')).toBe(401), { timeout: 10_000, interval: 50 });
    expect(await status('tenant-xyz')).toBe(200);

    await writeFile(keysFile, `keys:\n${entry('tenant-xyz', '    params: { project: xyz }\n    rate_per_second: nope\n')}`);
    // Two lines, two writes: the second may arrive a moment after the first.
    await vi.waitFor(
      () => {
        expect(serve.stderr()).toContain(`${keysFile}:5: keys[0].rate_per_second must be a number`);
        expect(serve.stderr()).toContain('not reloaded; the keys read last stay in force');
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(await status('tenant-xyz')).toBe(200);
    for (const key of Object.values(keys)) expect(serve.stdout() + serve.stderr()).not.toContain(key);
  });

  it('refuses to start on a keys file with a problem, naming its file and line', async () => {
    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, 'keys:\n  - name: a\n    sha256: not-a-hash\n');
    await expect(startServe(['--db', join(dir, 'db.duckdb'), '--endpoints', SHIPPED_ENDPOINTS], { CANNERY_KEYS_FILE: bad, CANNERY_CONSOLE: 'false' })).rejects.toThrow(
      `${bad}:3: sha256 must be the key's SHA-256`,
    );
  });
});
