/**
 * Response formats: Accept negotiation and CSV fields as pure functions, then JSON, NDJSON and CSV
 * over the real server, with nested values, quoting, caching and errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CanneryError } from '../../src/core/errors.js';
import { csvField } from '../../src/http/csv.js';
import { JSON_CONTENT_TYPE } from '../../src/http/errors.js';
import { negotiate } from '../../src/http/formats.js';
import { cachedEndpoint } from '../engine/serve/cache/harness.js';
import { endpointText } from '../support/endpoint-text.js';
import { startOpsService, type OpsService } from '../support/ops-service.js';

const Q = '/api/endpoints/query/';
const NDJSON = 'application/x-ndjson';
const CSV = 'text/csv; charset=utf-8; header=present';

describe('negotiate', () => {
  const chosen = (accept: string | null) => negotiate(accept).contentType;

  it.each([
    [null, JSON_CONTENT_TYPE],
    ['', JSON_CONTENT_TYPE],
    ['*/*', JSON_CONTENT_TYPE],
    ['application/json', JSON_CONTENT_TYPE],
    ['application/x-ndjson', NDJSON],
    ['text/csv', CSV],
    ['TEXT/CSV; charset=utf-8', CSV],
    // Named outright beats a wildcard at the same q.
    ['text/csv, */*', CSV],
    ['application/x-ndjson, */*;q=0.8', NDJSON],
    ['text/*', CSV],
    // The higher q wins; at equal q and equal precision, JSON.
    ['application/json;q=0.5, text/csv', CSV],
    ['text/csv;q=0.9, application/json', JSON_CONTENT_TYPE],
    ['text/csv, application/json', JSON_CONTENT_TYPE],
    // Nothing cannery makes, or nonsense: JSON rather than an error.
    ['text/html', JSON_CONTENT_TYPE],
    ['application/xml, text/html;q=0.9', JSON_CONTENT_TYPE],
    ['garbage', JSON_CONTENT_TYPE],
    ['text/csv;q=0', JSON_CONTENT_TYPE],
    // JSON refused, another format accepted.
    ['application/json;q=0, text/csv', CSV],
    ['*/*;q=0, application/x-ndjson', NDJSON],
  ])('Accept %j gives %s', (accept, contentType) => {
    expect(chosen(accept)).toBe(contentType);
  });

  it.each([['application/json;q=0'], ['application/json;q=0, text/html'], ['*/*;q=0'], ['application/*;q=0, text/plain']])(
    'Accept %j refuses every format: 406 not_acceptable',
    (accept) => {
      expect(() => negotiate(accept)).toThrow(CanneryError);
      try {
        negotiate(accept);
      } catch (error) {
        expect((error as CanneryError).code).toBe('not_acceptable');
        expect((error as CanneryError).message).toContain('application/json, application/x-ndjson, text/csv');
      }
    },
  );
});

describe('csvField', () => {
  it.each([
    [null, ''],
    ['', '""'],
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\r', '"cr\r"'],
    [' spaced ', ' spaced '],
    [42, '42'],
    [-1.5, '-1.5'],
    [true, 'true'],
    [[{ a: 1 }], '"[{""a"":1}]"'],
    [{ k: 'v' }, '"{""k"":""v""}"'],
    [[], '[]'],
  ])('%j -> %j', (value, field) => {
    expect(csvField(value)).toBe(field);
  });
});

/** A CSV reader following RFC 4180, to read back what the server wrote. */
function readCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') (field += '"'), index++;
      else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') record.push(field), (field = '');
    else if (char === '\r' && text[index + 1] === '\n') record.push(field), records.push(record), (record = []), (field = ''), index++;
    else field += char;
  }
  if (field !== '' || record.length) throw new Error(`CSV does not end with CRLF: ${JSON.stringify(text.slice(-40))}`);
  return records;
}

const edgeEvents = [
  { id: 'e1', timestamp: '2024-05-01T10:00:00Z', event_message: 'plain message', project: 'p1', metadata: { request: { method: 'GET', path: '/a' } } },
  { id: 'e2', timestamp: '2024-05-01T10:01:00Z', event_message: 'comma, "quotes"\nand a newline', project: 'p1', metadata: { request: { method: 'POST', path: '/b,c' } } },
  { id: 'e3', timestamp: '2024-05-01T10:02:00Z', event_message: '', project: 'p1', metadata: { request: { method: 'GET', path: '/d' } } },
];

let ops: OpsService;

beforeAll(async () => {
  const query = [
    'select t.id, t.timestamp, t.event_message, t.metadata, cast(null as string) as nothing, 7 as n',
    'from `cloudflare.logs.prod` as t where t.project = @project order by t.id',
  ];
  ops = await startOpsService({
    fixtures: { 'cloudflare.logs.prod': edgeEvents },
    endpoints: {
      'rows.yaml': endpointText('fmt.rows', ['project: { type: string, required: true }'], query),
      'cached.yaml': cachedEndpoint('fmt.cached', '{ ttl_seconds: 60 }', ['project: { type: string, required: true }'], query),
      'nonfinite.yaml': endpointText('fmt.nonfinite', ['project: { type: string, required: true }'], [
        'select ieee_divide(0, 0) as nan, ieee_divide(1, 0) as inf, [ieee_divide(-1, 0), 0.5] as lows, struct(ieee_divide(0, 0) as x) as rec',
        'from `cloudflare.logs.prod` as t where t.project = @project and t.id = "e1"',
      ]),
    },
  });
});
afterAll(() => ops.close());

async function get(path: string, accept?: string) {
  const response = await ops.send(path, accept === undefined ? {} : { headers: { accept } });
  return { response, status: response.status, text: await response.text(), header: (name: string) => response.headers.get(name) };
}

describe('formats over HTTP', () => {
  it('NDJSON: one row per line, the same rows as JSON', async () => {
    const json = JSON.parse((await get(`${Q}fmt.rows?project=p1`)).text).result;
    const ndjson = await get(`${Q}fmt.rows?project=p1`, 'application/x-ndjson');
    expect(ndjson.status).toBe(200);
    expect(ndjson.header('content-type')).toBe(NDJSON);
    expect(ndjson.text.endsWith('\n')).toBe(true);
    const lines = ndjson.text.slice(0, -1).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.map((line) => JSON.parse(line))).toEqual(json);
    expect(json[1].event_message).toBe('comma, "quotes"\nand a newline');
  });

  it('CSV: a header row, then one record per row; nested values as JSON text; NULL and "" apart', async () => {
    const json = JSON.parse((await get(`${Q}fmt.rows?project=p1`)).text).result;
    const csv = await get(`${Q}fmt.rows?project=p1`, 'text/csv');
    expect(csv.status).toBe(200);
    expect(csv.header('content-type')).toBe(CSV);
    const [header, ...records] = readCsv(csv.text);
    expect(header).toEqual(['id', 'timestamp', 'event_message', 'metadata', 'nothing', 'n']);
    expect(records).toEqual(
      json.map((row: any) => [row.id, String(row.timestamp), row.event_message, JSON.stringify(row.metadata), '', '7']),
    );
    // The quoting as written: RFC 4180 quotes for the awkward message, none for plain fields.
    expect(csv.text.split('\r\n')[2]).toMatch(/^e2,\d+,"comma, ""quotes""\nand a newline","\[\{""load_balancer_redirect_identifier"":null,/);
    expect(csv.text).toContain(',"",'); // e3's empty event_message
    expect(csv.text.split('\r\n')[1]).toMatch(/,,7$/); // NULL is an empty field
  });

  it('NaN and the infinities are the strings BigQuery writes, in JSON, NDJSON and CSV, nested too', async () => {
    const json = await get(`${Q}fmt.nonfinite?project=p1`);
    expect(json.text).toBe('{"result":[{"nan":"NaN","inf":"Infinity","lows":["-Infinity",0.5],"rec":{"x":"NaN"}}]}');
    expect((await get(`${Q}fmt.nonfinite?project=p1`, 'application/x-ndjson')).text).toBe(`${JSON.stringify(JSON.parse(json.text).result[0])}\n`);
    expect(readCsv((await get(`${Q}fmt.nonfinite?project=p1`, 'text/csv')).text)).toEqual([
      ['nan', 'inf', 'lows', 'rec'],
      ['NaN', 'Infinity', '["-Infinity",0.5]', '{"x":"NaN"}'],
    ]);
  });

  it('no rows: an empty body in either format', async () => {
    expect((await get(`${Q}fmt.rows?project=nobody`, 'text/csv')).text).toBe('');
    expect((await get(`${Q}fmt.rows?project=nobody`, 'application/x-ndjson')).text).toBe('');
  });

  it('other Accept values get JSON; refusing JSON and offering nothing else is a JSON 406', async () => {
    const html = await get(`${Q}fmt.rows?project=p1`, 'text/html,application/xhtml+xml');
    expect([html.status, html.header('content-type')]).toEqual([200, JSON_CONTENT_TYPE]);
    const refused = await get(`${Q}fmt.rows?project=p1`, 'application/json;q=0');
    expect([refused.status, refused.header('content-type')]).toEqual([406, JSON_CONTENT_TYPE]);
    expect(JSON.parse(refused.text).error.code).toBe('not_acceptable');
  });

  it('errors stay JSON whatever the Accept', async () => {
    const error = await get(`${Q}fmt.rows`, 'text/csv');
    expect([error.status, error.header('content-type')]).toEqual([400, JSON_CONTENT_TYPE]);
    expect(JSON.parse(error.text).error.code).toBe('missing_parameter');
  });

  it('formats share one cache entry; each has its own ETag, and 304 works for each', async () => {
    const miss = await get(`${Q}fmt.cached?project=p1`);
    expect(miss.header('x-cache')).toBe('MISS');
    const csv = await get(`${Q}fmt.cached?project=p1`, 'text/csv');
    const ndjson = await get(`${Q}fmt.cached?project=p1`, 'application/x-ndjson');
    expect([csv.header('x-cache'), ndjson.header('x-cache')]).toEqual(['HIT', 'HIT']);
    expect(ops.backend.requests.filter((request) => request.endpointName === 'fmt.cached')).toHaveLength(1);
    const etags = [miss, csv, ndjson].map((answer) => answer.header('etag'));
    expect(new Set(etags).size).toBe(3);
    for (const etag of etags) expect(etag).toMatch(/^"[\w-]+"$/);
    expect(csv.header('vary')).toBe('Accept, SVC-ENDPOINT-REDACT-PII');
    const notModified = await ops.send(`${Q}fmt.cached?project=p1`, { headers: { accept: 'text/csv', 'if-none-match': csv.header('etag')! } });
    expect(notModified.status).toBe(304);
    // The JSON ETag does not validate the CSV representation.
    const other = await ops.send(`${Q}fmt.cached?project=p1`, { headers: { accept: 'text/csv', 'if-none-match': miss.header('etag')! } });
    expect(other.status).toBe(200);
    expect(readCsv(await other.text())).toHaveLength(4);
  });
});
