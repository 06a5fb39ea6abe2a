/**
 * The CLI beside a running `cannery serve` on the same database file, all as built processes:
 * what only reads works (the file is opened read-only), what must write says in cannery's words
 * that serve holds the file and what to do, never DuckDB's advice about its own CLI.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cannery, CLI, type Run } from '../support/cannery-cli.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { loadFixtures, SHIPPED_ENDPOINTS } from '../support/service.js';

const KEY = 'busy-test-key';
const EVENTS = [
  { id: 'e1', timestamp: '2024-05-01T10:00:00Z', project: 'alpha', event_message: 'GET /rest/v1/items' },
  { id: 'e2', timestamp: '2024-05-01T10:05:00Z', project: 'alpha', event_message: 'GET /auth/v1/user' },
];

let dir: string;
let db: string;
let serve: ServeProcess;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cannery-busy-'));
  db = join(dir, 'logs.duckdb');
  await loadFixtures(db, { 'cloudflare.logs.prod': EVENTS });
  await writeFile(join(dir, 'more.ndjson'), `${JSON.stringify({ ...EVENTS[0], id: 'e3' })}\n`);
  serve = await startServe(['--db', db, '--endpoints', SHIPPED_ENDPOINTS], { CANNERY_API_KEYS: KEY, CANNERY_COMPILE_CACHE: 'off' });
});
afterAll(async () => {
  await serve?.stop();
  await rm(dir, { recursive: true, force: true });
});

const env = { CANNERY_COMPILE_CACHE: 'off' };

/** What every refusal must not say: DuckDB's own words and advice. */
function expectCanneryWords(run: Run): void {
  expect(run.stderr).not.toMatch(/Could not set lock|-readonly|IO Error/);
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
}

describe('beside a running serve', () => {
  it('run answers what the server answers', async () => {
    const run = await cannery(['run', 'logs.all', 'project=alpha', '--db', db, '--endpoints', SHIPPED_ENDPOINTS], { env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const response = await fetch(`${serve.url}/api/endpoints/query/logs.all?project=alpha`, { headers: { 'x-api-key': KEY } });
    expect(JSON.parse(run.stdout)).toEqual(await response.json());
    expect(JSON.parse(run.stdout).result.map((row: { id: string }) => row.id)).toEqual(['e2', 'e1']);
  });

  it('describe works', async () => {
    const run = await cannery(['describe', 'logs.all', '--endpoints', SHIPPED_ENDPOINTS], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('logs.all');
  });

  it.each([
    ['import', ['import', '--db', '<db>', '--source', 'cloudflare.logs.prod', '<dir>/more.ndjson']],
    ['seed', ['seed', '--db', '<db>', '--events', '10']],
    ['compact', ['compact', '--db', '<db>']],
  ])('%s says that serve holds the database, and what to do', async (command, args) => {
    const run = await cannery(args.map((arg) => arg.replace('<db>', db).replace('<dir>', dir)), { env });
    expect(run.code).toBe(1);
    const pid = serve.child.pid!;
    expect(run.stderr).toContain(`cannery: ${db} is in use by \`cannery serve\` (PID ${pid}), which keeps it open for reading while it serves, and \`cannery ${command}\` must write to it: `);
    expect(run.stderr).toContain(`stop the server (Ctrl-C where it runs, or \`kill ${pid}\`), run this command again, then start the server again`);
    expectCanneryWords(run);
  });

  it('left the database as it was: the server still answers the same rows', async () => {
    const response = await fetch(`${serve.url}/api/endpoints/query/logs.all?project=alpha`, { headers: { 'x-api-key': KEY } });
    expect(((await response.json()) as { result: { id: string }[] }).result.map((row) => row.id)).toEqual(['e2', 'e1']);
  });
});

describe('beside a running import', () => {
  let importing: ChildProcess | undefined;
  let other: string;
  beforeAll(async () => {
    other = join(dir, 'importing.duckdb');
    // An import reading standard input holds the file for writing until its input ends.
    importing = spawn(process.execPath, [CLI, 'import', '--db', other, '--source', 'cloudflare.logs.prod', '-'], {
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    importing.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    importing.stdin!.write(`${JSON.stringify(EVENTS[0])}\n`);
    // The file exists once the import has opened it; a probe before then would create it itself.
    for (let waits = 0; !existsSync(other) && importing.exitCode === null && waits < 1200; waits += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    for (let tries = 0; ; tries += 1) {
      const probe = await cannery(['run', 'logs.all', 'project=alpha', '--db', other, '--endpoints', SHIPPED_ENDPOINTS], { env });
      if (probe.stderr.includes('is being written by')) break;
      if (tries > 300 || importing.exitCode !== null) throw new Error(`the import never held the file: ${probe.stderr} ${stderr}`);
    }
  });
  afterAll(() => {
    importing?.kill('SIGKILL');
  });

  it('run says the file is being written and to run again once that has finished', async () => {
    const run = await cannery(['run', 'logs.all', 'project=alpha', '--db', other, '--endpoints', SHIPPED_ENDPOINTS], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannery: ${other} is being written by \`cannery import\` (PID ${importing!.pid}): run this command again once that has finished`);
    expectCanneryWords(run);
  });
});
