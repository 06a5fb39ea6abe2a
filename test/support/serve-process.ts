/** The built CLI's `serve` (`npm test` builds dist/ first) as its own process, on any free port. */
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI } from './cannery-cli.js';

export interface ServeProcess {
  /** The base URL `serve` printed, without a trailing slash. */
  url: string;
  child: ChildProcess;
  /** Everything written on stdout so far. */
  stdout(): string;
  stderr(): string;
  /** SIGKILL, unless it has exited already; resolves once it has. */
  stop(): Promise<void>;
}

/** Only PATH and `env` reach the child, run in `cwd` (default: this process's). Resolves once it prints the URL it listens on. */
export function startServe(args: string[], env: Record<string, string>, cwd?: string): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = / on (http:\/\/\S+) /.exec(stdout);
      if (match) {
        resolve({
          url: match[1]!,
          child,
          stdout: () => stdout,
          stderr: () => stderr,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null || child.signalCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGKILL');
            }),
        });
      }
    });
    child.on('exit', (code) => reject(new Error(`serve exited before listening (${code}): ${stderr}`)));
  });
}
