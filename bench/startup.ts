/**
 * Start-up time: from spawning the built `cannery serve` to its first 200 on /health, with the
 * two shipped endpoint files and with 500 generated ones (variations of the shipped two, each
 * with a fresh UUID and name). Runs alternate between the two folders.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { median, serve, SHIPPED_ENDPOINTS } from './support.js';

export interface StartupCost {
  files: number;
  runs: number;
  medianMs: number;
  maxMs: number;
}

/** Writes `count` endpoint files into `dir`: the shipped ones in turn, renamed and varied. */
export async function generateEndpoints(dir: string, count: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  const shipped = await shippedFiles();
  const texts = await Promise.all(shipped.map((name) => readFile(join(SHIPPED_ENDPOINTS, name), 'utf8')));
  for (let i = 0; i < count; i += 1) {
    const text = texts[i % texts.length]!;
    const name = `${/^name: (.+)$/m.exec(text)![1]}.v${String(i).padStart(3, '0')}`;
    const varied = text
      .replace(/^id: .+$/m, `id: ${randomUUID()}`)
      .replace(/^name: .+$/m, `name: ${name}`)
      // Different row caps, so no two compile to the same SQL.
      .replace(/^max_rows: \d+$/m, `max_rows: ${500 + i}`)
      .replace(/^ {2}limit 100$/m, `  limit ${50 + (i % 50)}`);
    await writeFile(join(dir, `${name}.yaml`), varied);
  }
}

async function shippedFiles(): Promise<string[]> {
  return (await readdir(SHIPPED_ENDPOINTS)).filter((name) => name.endsWith('.yaml')).sort();
}

/** Spawn to the first 200 on /health, in milliseconds; checks every endpoint loaded. */
async function startOnce(db: string, endpoints: string, files: number): Promise<number> {
  const served = await serve({ db, endpoints });
  try {
    const body = (await (await fetch(`${served.url}/health`)).json()) as { endpoints: string[]; problems: unknown[] };
    if (body.endpoints.length !== files || body.problems.length) {
      throw new Error(`expected ${files} endpoints without problems, got ${body.endpoints.length} and ${JSON.stringify(body.problems).slice(0, 500)}`);
    }
    return served.startupMs;
  } finally {
    await served.stop();
  }
}

export async function measureStartup(db: string, workDir: string, runs: number): Promise<StartupCost[]> {
  const generated = join(workDir, 'endpoints-500');
  await generateEndpoints(generated, 500);
  const folders = [
    { dir: SHIPPED_ENDPOINTS, files: (await shippedFiles()).length, times: [] as number[] },
    { dir: generated, files: 500, times: [] as number[] },
  ];
  for (let run = 0; run < runs; run += 1) {
    for (const folder of folders) folder.times.push(await startOnce(db, folder.dir, folder.files));
  }
  return folders.map(({ files, times }) => ({ files, runs, medianMs: median(times), maxMs: Math.max(...times) }));
}
