/**
 * `cannery run NAME ... --redact-pii`: the built CLI in a child process (`npm test` builds dist/
 * first), redacting as the header does.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SHIPPED_ENDPOINTS, loadFixtures } from '../support/service.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const run = promisify(execFile);

let dir: string;
let db: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cannery-redact-cli-'));
  db = join(dir, 'test.duckdb');
  await loadFixtures(db, {
    'cloudflare.logs.prod': [
      {
        id: 'e1',
        timestamp: '2024-05-01T10:00:00Z',
        project: 'p1',
        event_message: 'login alice@example.com from 203.0.113.9',
        metadata: { request: { headers: { x_real_ip: '2001:db8::7' } } },
      },
    ],
  });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function cannery(...args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, [CLI, 'run', 'logs.all', 'project=p1', '--db', db, '--endpoints', SHIPPED_ENDPOINTS, ...args], {
    env: { PATH: process.env.PATH ?? '' },
  });
  return JSON.parse(stdout);
}

it('prints rows as stored without --redact-pii, redacted with it', async () => {
  const plain = await cannery();
  expect(plain.result[0].event_message).toBe('login alice@example.com from 203.0.113.9');
  const redacted = await cannery('--redact-pii');
  expect(redacted.result[0].event_message).toBe('login REDACTED from REDACTED');
  expect(redacted.result[0].metadata[0].request[0].headers[0].x_real_ip).toBe('REDACTED');
});
