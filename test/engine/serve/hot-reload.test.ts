/**
 * Hot reload over the real server: add, change, break, fix and delete endpoint files while
 * it serves. The watcher is real (fs.watch); each step polls, boundedly, until it shows.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCompileCache } from '../../../src/engine/compile/cache.js';
import { startHotReload, type HotReload } from '../../../src/engine/serve/hot-reload.js';
import { compileContextFor } from '../../../src/cli/open-service.js';
import { endpointText } from '../../support/endpoint-text.js';
import { startTestService, type TestService } from '../../support/service.js';
import { eventually } from '../../support/eventually.js';

const constant = (name: string, value: number) => endpointText(name, [], [`select ${value} as n`]);

let svc: TestService;
let reload: HotReload;
let folder: string;
const log: string[] = [];

beforeAll(async () => {
  svc = await startTestService({ endpoints: { 'a.yaml': constant('reload.a', 1) } });
  folder = join(svc.dir, 'endpoints');
  // Through a compile cache, as `serve` reloads: a changed file is a new text, never a stale entry.
  const cache = await openCompileCache(join(svc.dir, 'compiled'), (line) => log.push(line));
  const load = { cache };
  reload = startHotReload({ service: svc.service, dir: folder, context: () => compileContextFor(svc.service.backend), load, log: (line) => log.push(line), settleMs: 20 });
});
afterAll(async () => {
  reload.close();
  await svc.close();
});

const answer = async (name: string) => {
  const { status, body } = await svc.call(`/api/endpoints/query/${name}`);
  return { status, n: body.result?.[0]?.n, code: body.error?.code };
};

describe('hot reload', () => {
  it('serves a new file', async () => {
    await writeFile(join(folder, 'b.yaml'), constant('reload.b', 2));
    await eventually(async () => expect(await answer('reload.b')).toEqual({ status: 200, n: 2, code: undefined }));
  });

  it('serves a changed file', async () => {
    await writeFile(join(folder, 'a.yaml'), constant('reload.a', 10));
    await eventually(async () => expect((await answer('reload.a')).n).toBe(10));
  });

  it('keeps the last good version of a broken file, and reports it in /health and the log', async () => {
    await writeFile(join(folder, 'a.yaml'), constant('reload.a', 11).replace('select 11 as n', 'select 11 as n from `no.such.source`'));
    await eventually(async () => {
      const health = (await (await svc.get('/health')).json()) as { problems: { file: string }[] };
      expect(health.problems.map((problem: { file: string }) => problem.file)).toContain(join(folder, 'a.yaml'));
    });
    expect(await answer('reload.a')).toMatchObject({ status: 200, n: 10 });
    expect(log.some((line) => line.includes('a.yaml') && line.includes('no.such.source'))).toBe(true);
  });

  it('serves the fixed file', async () => {
    await writeFile(join(folder, 'a.yaml'), constant('reload.a', 12));
    await eventually(async () => expect((await answer('reload.a')).n).toBe(12));
    const health = (await (await svc.get('/health')).json()) as { problems: unknown[] };
    expect(health.problems).toEqual([]);
  });

  it("drops a changed endpoint's cache entries", async () => {
    const cached = (value: number) => constant('reload.c', value).replace('cache: false', 'cache: { ttl_seconds: 900 }');
    await writeFile(join(folder, 'c.yaml'), cached(1));
    await eventually(async () => expect((await answer('reload.c')).n).toBe(1));
    const hit = await svc.call('/api/endpoints/query/reload.c');
    expect(hit.response.headers.get('x-cache')).toBe('HIT');
    await writeFile(join(folder, 'c.yaml'), cached(2));
    await eventually(async () => {
      const changed = await svc.call('/api/endpoints/query/reload.c');
      expect(changed.body.result).toEqual([{ n: 2 }]);
      expect(changed.response.headers.get('x-cache')).toBe('MISS');
    });
  });

  it('does not reload for the endpoint tests folder, nor read it as endpoints', async () => {
    const reloads = () => log.filter((line) => line.startsWith('reload: serving')).length;
    const before = reloads();
    await mkdir(join(folder, 'tests'));
    await writeFile(join(folder, 'tests', 'reload.a.yaml'), 'endpoint: reload.a\n');
    // Longer than the watcher settles (20 ms): a reload for the folder would come on its own.
    await new Promise((resolve) => setTimeout(resolve, 300));
    // A change the watcher does see, after them: once it is served, they would have been too.
    await writeFile(join(folder, 'd.yaml'), constant('reload.d', 4));
    await eventually(async () => expect((await answer('reload.d')).n).toBe(4));
    expect(reloads()).toBe(before + 1);
    const health = (await (await svc.get('/health')).json()) as { endpoints: string[]; problems: unknown[] };
    expect(health.problems).toEqual([]);
    expect(health.endpoints).not.toContain('tests');
  });

  it('serves a file changed back to an earlier text from the compile cache', async () => {
    const earlier = constant('reload.e', 20);
    await writeFile(join(folder, 'e.yaml'), earlier);
    await eventually(async () => expect((await answer('reload.e')).n).toBe(20));
    await writeFile(join(folder, 'e.yaml'), constant('reload.e', 21));
    await eventually(async () => expect((await answer('reload.e')).n).toBe(21));
    await writeFile(join(folder, 'e.yaml'), earlier);
    await eventually(async () => expect((await answer('reload.e')).n).toBe(20));
    // Every file of that reload, the changed one included, came from the cache.
    expect(svc.service.registry.stats).toMatchObject({ compiled: 0 });
  });

  it('stops serving a deleted file', async () => {
    await rm(join(folder, 'b.yaml'));
    await eventually(async () => expect(await answer('reload.b')).toMatchObject({ status: 404, code: 'endpoint_not_found' }));
    expect((await answer('reload.a')).n).toBe(12);
  });
});
