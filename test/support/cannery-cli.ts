/** The built CLI (`npm test` builds dist/ first), run to completion with its output captured. */
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Only PATH and `env` reach the child, so the caller's environment cannot change the outcome. */
export function cannery(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return run(process.execPath, [CLI, ...args], { cwd: options.cwd ?? tmpdir(), env: { PATH: process.env.PATH ?? '', ...options.env } });
}

/** Runs a program to its end, with no input, and collects what it printed. */
export function run(command: string, args: string[], options: { cwd: string; env: Record<string, string> }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
