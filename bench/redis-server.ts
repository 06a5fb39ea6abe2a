/**
 * A throwaway Redis (or Valkey) server on a free loopback port, with no persistence: what the
 * shared-cache tests and `npm run bench:replicas` run cannery's replicas against. It uses the
 * system's `redis-server` or `valkey-server` (Debian: apt-get install redis-server; .ci/run
 * installs it), and can be killed, frozen and brought back on the same port, as outages go.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { freePort } from './free-port.js';

export interface RedisServer {
  /** redis://127.0.0.1:<port> */
  url: string;
  port: number;
  /** The binary it runs (redis-server or valkey-server). */
  binary: string;
  /** SIGKILL: the store dies as a crashed host's does, and its data with it. */
  kill(): Promise<void>;
  /** SIGSTOP: connections stay open and nothing answers (a slow or hung store). */
  freeze(): void;
  /** SIGCONT after freeze. */
  thaw(): void;
  /** A new, empty server on the same port (after kill). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** The first of redis-server and valkey-server on PATH, or undefined. */
export function redisBinary(): string | undefined {
  for (const binary of ['redis-server', 'valkey-server']) {
    if (spawnSync(binary, ['--version'], { stdio: 'ignore' }).status === 0) return binary;
  }
  return undefined;
}

/** What to tell a reader when there is no server to run. */
export const NO_REDIS = 'no redis-server or valkey-server on PATH (Debian: apt-get install redis-server; .ci/run installs it)';

/** Resolves once the server answers PING on `port`. */
async function answers(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the redis server exited before it answered:\n${output()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' }, () => socket.write('PING\r\n'));
      socket.setTimeout(500, () => socket.destroy());
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
      socket.once('error', () => resolve(false));
      socket.once('close', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() - started > 10_000) throw new Error(`the redis server did not answer within 10 s:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function startRedisServer(binary = redisBinary()): Promise<RedisServer> {
  if (!binary) throw new Error(NO_REDIS);
  const port = await freePort();
  let child: ChildProcess;
  let output = '';
  const launch = async () => {
    output = '';
    // No snapshots, no append-only file: a cache that starts empty, as a restarted one does.
    child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no', '--loglevel', 'warning'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    await answers(port, child, () => output);
  };
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  const kill = async () => {
    if (ended()) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited;
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    binary,
    kill,
    freeze: () => child.kill('SIGSTOP'),
    thaw: () => child.kill('SIGCONT'),
    async restart() {
      await kill();
      await launch();
    },
    stop: kill,
  };
}
