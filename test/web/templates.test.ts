/** Every SQL template the console offers runs on the endpoints that offer it, over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templatesFor, TEMPLATES } from '../../web/src/templates.js';
import { startTestService, TEST_KEY, type TestService } from '../support/service.js';

let svc: TestService;
let endpoints: { name: string; ctes?: { name: string }[] }[];

beforeAll(async () => {
  svc = await startTestService();
  endpoints = (await svc.call('/api/endpoints')).body.endpoints;
});
afterAll(() => svc.close());

describe('SQL templates', () => {
  it('are each offered by at least one shipped endpoint', () => {
    const offered = new Set(endpoints.flatMap((endpoint) => templatesFor((endpoint.ctes ?? []).map((cte) => cte.name))));
    expect([...offered].map((template) => template.title).sort()).toEqual(TEMPLATES.map((template) => template.title).sort());
  });

  it('run where they are offered, the sandbox accepting each', async () => {
    for (const endpoint of endpoints) {
      for (const template of templatesFor((endpoint.ctes ?? []).map((cte) => cte.name))) {
        const params = new URLSearchParams({ project: 'p1', ...(endpoint.name === 'usage.api-counts' ? { interval: 'daily' } : {}), sql: template.sql });
        const response = await svc.get(`/api/endpoints/query/${endpoint.name}?${params}`, { 'x-api-key': TEST_KEY });
        expect(response.status, `${endpoint.name}: ${template.title}: ${await response.clone().text()}`).toBe(200);
        expect(Array.isArray(((await response.json()) as any).result)).toBe(true);
      }
    }
  });
});
