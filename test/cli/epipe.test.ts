/**
 * A reader that stops early (`cannery run ... | head -1`): every command that writes to standard
 * output ends quietly, with the exit code it would have had, instead of dying of an unhandled EPIPE.
 * The pipe is closed before the command writes anything, so its first write meets a gone reader.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../support/cannery-cli.js';
import { startServe } from '../support/serve-process.js';
import { loadFixtures, SHIPPED_ENDPOINTS } from '../support/service.js';

function withReaderGone(args: string[], cwd: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('standard output closed by its reader', () => {
  let dir: string;
  let db: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cannery-epipe-'));
    db = join(dir, 'events.duckdb');
    const events = Array.from({ length: 300 }, (_, index) => ({
      id: `e${index}`,
      timestamp: new Date(Date.UTC(2026, 0, 1) + index * 1000).toISOString(),
      project: 'p1',
      event_message: `event ${index} ${'x'.repeat(200)}`,
    }));
    await loadFixtures(db, { 'cloudflare.logs.prod': events });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const endpoints = () => ['--endpoints', SHIPPED_ENDPOINTS];
  const cases: [string, () => string[], number][] = [
    ['run', () => ['run', 'logs.all', 'project=p1', '--db', db, ...endpoints()], 0],
    ['test', () => ['test', '--filter', 'both bounds keep', ...endpoints()], 0],
    ['openapi', () => ['openapi', ...endpoints()], 0],
    ['describe', () => ['describe', 'logs.all', ...endpoints()], 0],
    ['check', () => ['check', ...endpoints()], 0],
    ['keys new', () => ['keys', 'new', 'reader'], 0],
    ['--help', () => ['--help'], 0],
  ];
  for (const [name, args, expected] of cases) {
    it(`${name} ends quietly, with its own exit code`, async () => {
      const { code, stderr } = await withReaderGone(args(), dir);
      expect(stderr).not.toMatch(/EPIPE|Error|    at /);
      expect(code).toBe(expected);
    });
  }

  it('serve goes on serving once the reader of its request log has gone', async () => {
    const key = 'epipe-test-key-0123456789';
    const served = await startServe(['--db', db, ...endpoints()], { CANNERY_API_KEYS: key });
    try {
      served.child.stdout!.destroy();
      const call = () => fetch(`${served.url}/api/endpoints/query/logs.all?project=p1`, { headers: { 'x-api-key': key } });
      expect((await call()).status).toBe(200);
      // The first answer's log line is written within 50 ms, to no one; the next answer comes all the same.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const next = await call();
      expect(next.status).toBe(200);
      expect(((await next.json()) as { result: unknown[] }).result).toHaveLength(100);
      expect(served.child.exitCode).toBeNull();
      expect(served.stderr()).not.toMatch(/EPIPE|    at /);
    } finally {
      await served.stop();
    }
  });
});
