/**
 * Runs a page's shell blocks as a reader would type them (docs/development.md, "Docs tested like
 * code"): one bash session per page, in a fresh folder holding a copy of the shipped endpoints and
 * no database, with `cannery` and `npx cannery` running the built CLI, the clock fixed
 * (CANNERY_NOW) and the server's port one of the machine's free ones, shown as 4000 (a second
 * server's, 4001 on the page, another). A server (`npm start`, `cannery serve`, a command ending
 * in `&`) runs in the background until the page ends; the runner waits until it serves.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyShippedEndpoints } from './shipped-copy.js';
import { outputMatches, readBlocks, readCommands, shownOutput, SHELL_LANGS, type Block } from './doc-pages.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli.js');

/** The time every page runs at: a Friday afternoon of the demo's week. */
export const DOCS_NOW = '2026-11-27T15:22:00Z';

/**
 * What `npm start` reads in a clone, linked into each page's folder (build-stamp.mjs checks the
 * clone's own stamp); package.json is copied, so nothing a page runs can write to the clone's.
 */
const CLONE_LINKS = ['build-stamp.mjs', 'dist', 'node_modules'];

/** The longest one command may run; past it the page fails and its processes are ended. */
const COMMAND_TIMEOUT_MS = 120_000;

export interface BlockResult {
  page: string;
  line: number;
  kind: 'run' | 'not-run';
  reason?: string;
  /** Commands whose output was compared with the page's. */
  compared: number;
  /** A command that failed, or a setup that did. */
  failures: string[];
  /** Outputs that differ from the page's (docs:update rewrites them). */
  mismatches: string[];
}

export interface PageRun {
  results: BlockResult[];
  /** The page's text with every shown output that no longer matches rewritten from the run. */
  updated: string;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A folder with `cannery` and `npx` (for `npx cannery`) ahead of the real ones on PATH. */
function shimFolder(dir: string): string {
  const bin = join(dir, '.bin');
  mkdirSync(bin);
  const cannery = join(bin, 'cannery');
  writeFileSync(cannery, `#!/bin/sh\nexec node ${JSON.stringify(CLI)} "$@"\n`);
  const npx = join(bin, 'npx');
  // Anything but cannery goes to the real npx, found on PATH past this folder.
  writeFileSync(npx, `#!/bin/sh\nif [ "$1" = cannery ]; then shift; exec node ${JSON.stringify(CLI)} "$@"; fi\nPATH="\${PATH#*:}" exec npx "$@"\n`);
  chmodSync(cannery, 0o755);
  chmodSync(npx, 0o755);
  return bin;
}

/** The environment of a page: the reader's PATH and home, no cannery setting of the runner's own. */
function pageEnv(bin: string, port: number, home: string): NodeJS.ProcessEnv {
  return {
    PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    TMPDIR: process.env.TMPDIR ?? tmpdir(),
    LANG: 'C.UTF-8',
    PORT: String(port),
    CANNERY_NOW: DOCS_NOW,
    // One compile cache for every page and run: each page's own home would compile every file again.
    CANNERY_COMPILE_CACHE: join(tmpdir(), 'cannery-docs-compiled'),
    // Light on a shared machine; no output of the docs depends on these.
    CANNERY_DUCKDB_THREADS: '1',
    CANNERY_SANDBOX_THREADS: '1',
  };
}

const SENTINEL = '__cannery_docs_done__';

/** One bash process per page; each command runs in it, so variables and `cd` carry on. */
class Session {
  private readonly shell: ChildProcessWithoutNullStreams;
  private buffer = '';
  private waiting: ((text: string) => void) | undefined;
  readonly servers: number[] = [];
  private logs = 0;

  constructor(
    readonly dir: string,
    env: NodeJS.ProcessEnv,
  ) {
    // Its own process group, so a command that hangs is ended with everything it started.
    this.shell = spawn('bash', ['--noprofile', '--norc'], { cwd: dir, env, detached: true });
    this.shell.stdout.setEncoding('utf8');
    this.shell.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.settle();
    });
    // The shell's own notices; every command's stderr goes with its stdout.
    this.shell.stderr.resume();
    // A shell ended (a command that timed out) is reported by run(), not by a write's error.
    this.shell.stdin.on('error', () => undefined);
  }

  private settle(): void {
    const at = this.buffer.indexOf(`${SENTINEL} `);
    if (at < 0 || !this.waiting) return;
    const end = this.buffer.indexOf('\n', at);
    if (end < 0) return;
    const text = this.buffer.slice(0, end + 1);
    this.buffer = this.buffer.slice(end + 1);
    const done = this.waiting;
    this.waiting = undefined;
    done(text);
  }

  private send(script: string): Promise<{ output: string; status: number }> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        this.kill('SIGKILL');
        resolve({ output: `${this.buffer}\n(still running after ${COMMAND_TIMEOUT_MS / 1000} s: ended)`, status: -1 });
      }, COMMAND_TIMEOUT_MS);
      this.waiting = (text) => {
        clearTimeout(timer);
        const at = text.lastIndexOf(`${SENTINEL} `);
        resolve({ output: text.slice(0, at), status: Number(text.slice(at + SENTINEL.length + 1).trim()) });
      };
      this.shell.stdin.write(`${script}\n__status=$?; echo; echo "${SENTINEL} $__status"\n`);
      this.settle();
    });
  }

  /** Runs a command to its end; its output is stdout and stderr as they came. */
  async run(command: string): Promise<{ output: string; status: number }> {
    if (this.shell.exitCode !== null || this.shell.signalCode !== null) return { output: '(the page\'s shell has ended)', status: -1 };
    // stdin from /dev/null: a command that reads it must not read the session's script.
    const result = await this.send(`{\n${command}\n} </dev/null 2>&1`);
    // Less the line the sentinel's `echo` began.
    return { output: result.output.replace(/\n$/, ''), status: result.status };
  }

  /** Starts a server in a session of its own and waits until it serves; what it printed by then. */
  async background(command: string): Promise<{ output: string; status: number }> {
    const log = join(this.dir, `.server-${this.logs++}.log`);
    const started = await this.run(`setsid bash -c ${shellQuote(command)} </dev/null >${shellQuote(log)} 2>&1 &\necho "server $!"`);
    const pid = Number(/server (\d+)/.exec(started.output)?.[1]);
    if (!Number.isInteger(pid)) return { output: started.output, status: -1 };
    this.servers.push(pid);
    const deadline = Date.now() + COMMAND_TIMEOUT_MS;
    let last = '';
    let stableSince = Date.now();
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const text = readFileSync(log, 'utf8');
      if (text !== last) {
        last = text;
        stableSince = Date.now();
      }
      // Serving, and done printing its start-up lines.
      if (/^cannery: serving /m.test(text) && Date.now() - stableSince >= 300) return { output: text.replace(/\n$/, ''), status: 0 };
      if (!alive(pid)) return { output: text.replace(/\n$/, ''), status: 1 };
      if (Date.now() > deadline) return { output: `${text}\n(not serving after ${COMMAND_TIMEOUT_MS / 1000} s)`, status: -1 };
    }
  }

  private kill(signal: NodeJS.Signals): void {
    for (const pid of [...this.servers, this.shell.pid!]) {
      try {
        process.kill(-pid, signal);
      } catch {
        // Already gone.
      }
    }
  }

  /** Ends the servers (SIGTERM, then SIGKILL after 10 s) and the shell, with whatever each started. */
  async close(): Promise<void> {
    for (const pid of this.servers) if (alive(pid)) process.kill(-pid, 'SIGTERM');
    for (let i = 0; i < 100 && this.servers.some(alive); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    const ended = new Promise((resolve) => (this.shell.exitCode !== null || this.shell.signalCode !== null ? resolve(undefined) : this.shell.once('exit', resolve)));
    this.kill('SIGKILL');
    await ended;
  }
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

function alive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A server a reader leaves running: `npm start`, `cannery serve` (any flags), or a command ending in `&`. */
export function isServer(command: string): boolean {
  const words = command.replace(/^(\w+=\S*\s+)*/, '');
  return /&\s*$/.test(command) || /^npm start\b/.test(words) || /^(npx )?cannery serve\b/.test(words);
}

/** The page's http://127.0.0.1:4000 is the page's own free port; 4001 (a second server's, `--port 4001`) another. */
function withPort(command: string, port: number, secondPort: number): string {
  return command
    .replace(/(127\.0\.0\.1|localhost):4000\b/g, `$1:${port}`)
    .replace(/(127\.0\.0\.1|localhost):4001\b/g, `$1:${secondPort}`)
    .replace(/(--port[ =])4001\b/g, `$1${secondPort}`);
}

/** Runs every shell block of a page, in order, in a fresh folder; the page's text updated from the run. */
export async function runPage(page: string): Promise<PageRun> {
  const path = join(ROOT, page);
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  const blocks = readBlocks(text);
  const dir = mkdtempSync(join(tmpdir(), 'cannery-docs-'));
  copyShippedEndpoints(join(dir, 'endpoints'));
  for (const entry of CLONE_LINKS) symlinkSync(join(ROOT, entry), join(dir, entry));
  copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  const home = join(dir, '.home');
  mkdirSync(home);
  // curl as at a terminal: its progress meter shows only when its output is piped, as here.
  writeFileSync(join(home, '.curlrc'), '--no-progress-meter\n');
  const port = await freePort();
  let secondPort = port;
  while (secondPort === port) secondPort = await freePort();
  const session = new Session(dir, pageEnv(shimFolder(dir), port, home));
  const results: BlockResult[] = [];
  // Rewrites, applied from the page's end so earlier line numbers stay true.
  const rewrites: { start: number; end: number; lines: string[] }[] = [];
  try {
    for (const block of blocks) {
      const shell = SHELL_LANGS.has(block.lang);
      if (block.notRun !== undefined) {
        if (shell) results.push({ page, line: block.line, kind: 'not-run', reason: block.notRun, compared: 0, failures: [], mismatches: [] });
        continue;
      }
      if (block.file !== undefined) {
        mkdirSync(dirname(join(dir, block.file)), { recursive: true });
        writeFileSync(join(dir, block.file), `${block.body.join('\n')}\n`);
      }
      if (!shell) continue;
      const result: BlockResult = { page, line: block.line, kind: 'run', compared: 0, failures: [], mismatches: [] };
      results.push(result);
      for (const setup of block.setup) {
        const ran = isServer(setup) ? await session.background(setup.replace(/&\s*$/, '')) : await session.run(setup);
        if (ran.status !== 0) result.failures.push(`setup \`${setup}\` exited ${ran.status}:\n${ran.output}`);
      }
      for (const command of readCommands(block)) {
        const typed = withPort(command.text, port, secondPort);
        const ran = isServer(command.text) ? await session.background(typed.replace(/&\s*$/, '')) : await session.run(typed);
        if (ran.status === -1) {
          result.failures.push(`\`${command.text}\`: ${ran.output}`);
          return { results, updated: text };
        }
        if (command.output === undefined) {
          if (ran.status !== 0) result.failures.push(`\`${command.text}\` exited ${ran.status}:\n${ran.output}`);
          continue;
        }
        result.compared++;
        const actual = shownOutput(ran.output, port, secondPort);
        if (!outputMatches(command.output, actual)) {
          result.mismatches.push(`\`${command.text}\` printed:\n${actual.join('\n')}\nwhere the page shows:\n${command.output.join('\n')}`);
          rewrites.push({ start: block.bodyStart + command.outputStart, end: block.bodyStart + command.outputEnd, lines: actual.map((line) => (line === '' ? '' : block.indent + line)) });
        }
      }
    }
  } finally {
    await session.close();
    rmSync(dir, { recursive: true, force: true });
  }
  for (const { start, end, lines: replacement } of rewrites.sort((a, b) => b.start - a.start)) lines.splice(start, end - start, ...replacement);
  return { results, updated: lines.join('\n') };
}

/** Writes a page's updated text (docs:update); false when nothing changed. */
export function writePage(page: string, updated: string): boolean {
  const path = join(ROOT, page);
  if (readFileSync(path, 'utf8') === updated) return false;
  writeFileSync(path, updated);
  return true;
}

/** The YAML blocks of a page, for checking: every one not marked not-run. */
export function yamlBlocks(page: string): Block[] {
  return readBlocks(readFileSync(join(ROOT, page), 'utf8')).filter((block) => ['yaml', 'yml'].includes(block.lang));
}

/** A scratch copy of the shipped endpoints, for checking one example beside them. */
export function scratchEndpoints(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cannery-docs-yaml-'));
  copyShippedEndpoints(join(dir, 'endpoints'));
  return dir;
}

