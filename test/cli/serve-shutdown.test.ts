/**
 * SIGTERM with a request in flight, against the built CLI: the request still completes, new
 * connections are refused, and the process exits 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHIPPED_ENDPOINTS as ENDPOINTS } from '../support/shipped-endpoints.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const KEY = 'shutdown-test-key';

let dir: string;
let child: ChildProcess;
let url: URL;
let stderr = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cannery-shutdown-'));
  child = spawn(process.execPath, [CLI, 'serve', '--demo', '--port', '0', '--db', join(dir, 'db.duckdb'), '--endpoints', ENDPOINTS], {
    env: { PATH: process.env.PATH ?? '', CANNERY_API_KEYS: KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  url = await new Promise<URL>((resolve, reject) => {
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /on (http:\/\/\S+)/.exec(stdout);
      if (match) resolve(new URL(match[1]!));
    });
    child.on('exit', (code) => reject(new Error(`serve exited early (${code}): ${stderr}`)));
  });
});
afterAll(async () => {
  if (child.exitCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

describe('SIGTERM', () => {
  it('lets a request in flight finish, refuses new connections, and exits 0', async () => {
    // A POST whose body is still arriving is a request in flight.
    const body = JSON.stringify({ project: 'p1' });
    const inFlight = request(new URL('/api/endpoints/query/logs.all', url), {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    });
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      inFlight.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      inFlight.on('error', reject);
    });
    inFlight.write(body.slice(0, 5));
    await new Promise((resolve) => setTimeout(resolve, 100));

    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));

    const refused = await fetch(new URL('/health', url)).then(
      () => false,
      () => true,
    );
    expect(refused).toBe(true);

    inFlight.end(body.slice(5));
    const { status, text } = await response;
    expect(status).toBe(200);
    expect(JSON.parse(text)).toEqual({ result: [] });
    expect(await exited).toBe(0);
    expect(stderr).toContain('SIGTERM');
  });
});
