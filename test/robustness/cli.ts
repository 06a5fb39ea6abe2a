/** The built `cannery serve` in a child process, as an operator runs it (`npm test` builds dist/ first). */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SHIPPED_ENDPOINTS } from '../support/shipped-endpoints.js';

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
export { SHIPPED_ENDPOINTS };
export const CLI_KEY = 'robustness-key';

export interface Serving {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export interface Exited {
  code: number | null;
  stderr: string;
}

function start(args: string[], env: Record<string, string>, options: Pick<SpawnOptions, 'uid' | 'gid'> = {}): ChildProcess {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  return spawn(process.execPath, [CLI, 'serve', '--port', '0', '--host', '127.0.0.1', ...args], {
    env: { PATH: process.env.PATH ?? '', CANNERY_API_KEYS: CLI_KEY, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options,
  });
}

/** Starts `serve` and resolves once it listens; rejects with its stderr if it exits first. */
export function serve(args: string[], env: Record<string, string> = {}): Promise<Serving> {
  const child = start(args, env);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let stdout = '';
    const read = (chunk: string) => {
      stdout += chunk;
      const url = / on (http:\/\/\S+) /.exec(stdout)?.[1];
      if (!url) return;
      // The request log follows on stdout: drained unread, so the pipe never fills.
      child.stdout!.off('data', read);
      child.stdout!.resume();
      resolve({
        url,
        child,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
          await exited;
        },
      });
    };
    child.stdout!.setEncoding('utf8').on('data', read);
    child.once('exit', (code) => reject(new Error(`cannery serve exited (${code}) before listening:\n${stderr}`)));
  });
}

/**
 * Runs `serve` expecting it to stop by itself (a start-up failure). One still running after
 * `limitMs` is killed and reported as such (code null), so a test cannot hang on it.
 */
export function serveUntilExit(args: string[], env: Record<string, string> = {}, options: Pick<SpawnOptions, 'uid' | 'gid'> = {}, limitMs = 20_000): Promise<Exited> {
  const child = start(args, env, options);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout!.resume();
  const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}
