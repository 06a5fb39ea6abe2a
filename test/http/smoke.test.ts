import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';

describe('harness', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({
      fixtures: {
        'cloudflare.logs.prod': [
          { id: 'e1', timestamp: '2024-05-01T10:00:00Z', event_message: 'GET /rest/v1/x', project: 'p1', metadata: { request: { path: '/rest/v1/x', url: 'https://p1.x/rest/v1/x' } } },
        ],
      },
    });
  });
  afterAll(() => svc.close());
  it('serves logs.all rows in the wire format', async () => {
    const { status, body } = await svc.call('/api/endpoints/query/logs.all?project=p1');
    expect(status).toBe(200);
    expect(body.result).toHaveLength(1);
    expect(body.result[0].timestamp).toBe(Date.parse('2024-05-01T10:00:00Z') * 1000);
    expect(body.result[0].metadata[0].request[0].path).toBe('/rest/v1/x');
  });
});
