/**
 * `cannery import` as a user runs it, and what it does when a load goes wrong: a bad input, a full
 * disk, the process stopped or killed part way, the same input run again.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '#duckdb-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cannery } from '../support/cannery-cli.js';

const SOURCE = 'cloudflare.logs.prod';
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

function events(count: number, prefix = 'e'): string {
  const lines: string[] = [];
  for (let index = 0; index < count; index += 1) {
    lines.push(JSON.stringify({ id: `${prefix}${index}`, timestamp: 1704067200000000 + index, event_message: `GET /rest/v1/t ${'x'.repeat(200)}`, project: 'p', metadata: { request: { path: `/rest/v1/t/${index}` } } }));
  }
  return `${lines.join('\n')}\n`;
}

/** Rows of `sql` in the database at `db`, opened after the CLI has exited. */
async function query(db: string, sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(db);
  try {
    const connection = await instance.connect();
    try {
      return (await connection.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cannery-import-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('cannery import', () => {
  it('prints its batch id before it starts and when it commits; the same file again is a no-op naming that batch', async () => {
    const db = join(dir, 'again.duckdb');
    const file = join(dir, 'again.ndjson');
    await writeFile(file, events(50));
    const first = await cannery(['import', '--db', db, '--source', SOURCE, file]);
    expect(first.code).toBe(0);
    const id = new RegExp(`^import (${UUID}): ${file} -> ${SOURCE} in ${db}\n`).exec(first.stderr)?.[1];
    expect(id).toBeDefined();
    expect(first.stderr).toContain(`committed import ${id}: 50 event(s) (`);
    const again = await cannery(['import', '--db', db, '--source', SOURCE, file]);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(new RegExp(`already imported: these [0-9.]+ KiB went into ${SOURCE} as import ${id} at \\S+ \\(50 events\\); nothing was written this time`));
    expect(await query(db, `SELECT count(*) AS n FROM "${SOURCE}"`)).toEqual([{ n: 50n }]);
  });

  it('refuses invalid UTF-8 naming the line, or with --replace-invalid-utf8 stores U+FFFD and counts the lines', async () => {
    const db = join(dir, 'utf8.duckdb');
    const file = join(dir, 'latin1.ndjson');
    const good = JSON.stringify({ id: 'a', timestamp: 0, event_message: 'fine' });
    await writeFile(file, Buffer.concat([Buffer.from(`${good}\n{"id":"b","timestamp":0,"event_message":"caf`), Buffer.from([0xe9]), Buffer.from('"}\n')]));
    const refused = await cannery(['import', '--db', db, '--source', SOURCE, file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/cannery: line 2: not valid UTF-8 \(at byte 45 of the line: 0xe9 0x22 0x7d\); convert the file to UTF-8 .* or pass --replace-invalid-utf8/);
    expect(refused.stderr).toMatch(new RegExp(`import ${UUID} failed; nothing of it was written to ${db}`));
    const replaced = await cannery(['import', '--db', db, '--source', SOURCE, '--replace-invalid-utf8', file]);
    expect(replaced.code).toBe(0);
    expect(replaced.stderr).toContain('1 line(s) had invalid UTF-8, stored with U+FFFD in place of the bad bytes (the first: line 2)');
    expect(await query(db, `SELECT id, event_message FROM "${SOURCE}" ORDER BY id`)).toEqual([
      { id: 'a', event_message: 'fine' },
      { id: 'b', event_message: 'caf\uFFFD' },
    ]);
  });

  it('refuses a line over --max-line-bytes naming its number and the limit', async () => {
    const db = join(dir, 'long.duckdb');
    const file = join(dir, 'long.ndjson');
    await writeFile(file, `${JSON.stringify({ id: 'a', timestamp: 0, event_message: 'short' })}\n${JSON.stringify({ id: 'b', timestamp: 0, event_message: 'y'.repeat(5000) })}\n`);
    const run = await cannery(['import', '--db', db, '--source', SOURCE, '--max-line-bytes', '4096', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('cannery: line 2: longer than the limit of 4.0 KiB (4096 bytes); an event that large is likely a mistake in the input. If it is not, raise the limit with --max-line-bytes');
    expect(await query(db, "SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = 'cloudflare.logs.prod'")).toEqual([{ n: 0n }]);
  });
});

/** An import reading its standard input, paused with its staged batch open (it waits for more lines). */
async function startedImport(db: string, staging: string) {
  const child = spawn(process.execPath, [CLI, 'import', '--db', db, '--source', SOURCE, '-'], {
    env: { PATH: process.env.PATH ?? '', TMPDIR: staging },
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal === null ? null : -1))));
  child.stdin!.write(events(100, 'killed'));
  const started = Date.now();
  while ((await readdir(staging)).length === 0) {
    if (Date.now() - started > 30_000) throw new Error(`the import never staged anything:\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { child, exited, stderr: () => stderr };
}

describe('cannery import stopped part way', () => {
  it('on SIGTERM exits, removes its staged batch and writes nothing', async () => {
    const db = join(dir, 'term.duckdb');
    const staging = await mkdtemp(join(dir, 'tmp-'));
    const run = await startedImport(db, staging);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(143);
    expect(run.stderr()).toContain('cannery: SIGTERM: import stopped; nothing of it was written');
    expect(await readdir(staging)).toEqual([]);
    expect(await query(db, "SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = 'cloudflare.logs.prod'")).toEqual([{ n: 0n }]);
  });

  it('killed outright leaves its staged batch, which the next import removes; nothing of it is written', async () => {
    const db = join(dir, 'kill.duckdb');
    const staging = await mkdtemp(join(dir, 'tmp-'));
    const run = await startedImport(db, staging);
    const [left] = await readdir(staging);
    run.child.kill('SIGKILL');
    await run.exited;
    expect(await readdir(staging)).toEqual([left]);
    const file = join(dir, 'after-kill.ndjson');
    await writeFile(file, events(3, 'after'));
    const next = await cannery(['import', '--db', db, '--source', SOURCE, file], { env: { TMPDIR: staging } });
    expect(next.code).toBe(0);
    expect(await readdir(staging)).toEqual([]);
    expect(await query(db, `SELECT count(*) AS n, count(*) FILTER (WHERE id LIKE 'killed%') AS killed FROM "${SOURCE}"`)).toEqual([{ n: 3n, killed: 0n }]);
  });
});

/**
 * A full disk, made for real: a 2 MiB tmpfs, mounted in a mount namespace of the test's own
 * (`unshare`, as root or where unprivileged user namespaces are allowed), so nothing outside sees it.
 */
const FULL_DISK = join(tmpdir(), `cannery-full-disk-${process.pid}`);
const canMount = (() => {
  if (process.platform !== 'linux') return false;
  spawnSync('mkdir', ['-p', FULL_DISK]);
  const probe = spawnSync('unshare', ['--user', '--map-root-user', '--mount', 'sh', '-c', 'mount -t tmpfs -o size=1m tmpfs "$0"', FULL_DISK], { encoding: 'utf8' });
  return probe.status === 0;
})();

/** Runs `script` (sh) with a 2 MiB tmpfs mounted at $DISK, and `node` and the CLI's path as $NODE and $CLI. */
function onFullDisk(script: string, env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('unshare', ['--user', '--map-root-user', '--mount', 'sh', '-c', `mount -t tmpfs -o size=2m tmpfs "$DISK" && ${script}`], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', DISK: FULL_DISK, NODE: process.execPath, CLI, ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe.skipIf(!canMount)('cannery import on a full disk', () => {
  afterAll(async () => {
    await rm(FULL_DISK, { recursive: true, force: true });
  });

  it('reports the database file and "No space left on device", keeps what was there before, and leaves no staged batch', async () => {
    const small = join(dir, 'fits.ndjson');
    const large = join(dir, 'too-large.ndjson');
    await writeFile(small, events(20, 'small'));
    await writeFile(large, events(20_000, 'large'));
    const staging = await mkdtemp(join(dir, 'tmp-'));
    const run = onFullDisk(
      `"$NODE" "$CLI" import --db "$DISK/full.duckdb" --source ${SOURCE} "$SMALL" && echo "first: $?" &&
       { "$NODE" "$CLI" import --db "$DISK/full.duckdb" --source ${SOURCE} "$LARGE"; echo "second: $?"; } &&
       "$NODE" "$CLI" import --db "$DISK/full.duckdb" --source ${SOURCE} "$SMALL"`,
      { SMALL: small, LARGE: large, TMPDIR: staging },
    );
    expect(run.stdout).toBe('first: 0\nsecond: 1\n');
    expect(run.stderr).toMatch(new RegExp(`cannery: .*Could not write file "${FULL_DISK}/full\\.duckdb[^"]*": No space left on device`));
    expect(run.stderr).toMatch(new RegExp(`import ${UUID} failed; nothing of it was written to ${FULL_DISK}/full\\.duckdb; free space where the message says, then run the same command again`));
    expect(run.stderr).not.toMatch(/cannot rollback|no transaction is active/);
    // The database still opens, and still holds the first import.
    expect(run.stderr).toMatch(/already imported: .* \(20 events\); nothing was written this time/);
    expect(run.status).toBe(0);
    expect(await readdir(staging)).toEqual([]);
  });

  it('reports the staged file and "no space left on device" when TMPDIR fills up, and removes the batch', async () => {
    const db = join(dir, 'staging-full.duckdb');
    const large = join(dir, 'too-large-to-stage.ndjson');
    await writeFile(large, events(20_000, 'staged'));
    const run = onFullDisk(`"$NODE" "$CLI" import --db "$DB" --source ${SOURCE} "$LARGE"; echo "exit: $?"; ls -A "$DISK"`, { DB: db, LARGE: large, TMPDIR: FULL_DISK });
    expect(run.stdout).toBe('exit: 1\n');
    expect(run.stderr).toMatch(
      new RegExp(`cannery: cannot write the staged copy of the input to ${FULL_DISK}/cannery-import-\\d+-\\w+/batch-\\d\\.ndjson: no space left on device \\(ENOSPC\\)\\. .*set TMPDIR to a disk with room`),
    );
    expect(existsSync(db)).toBe(true);
    expect(await query(db, "SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = 'cloudflare.logs.prod'")).toEqual([{ n: 0n }]);
  });
});
