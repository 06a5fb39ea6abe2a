/**
 * Row redaction: every string at any depth, keys and other values untouched, the input never
 * mutated, and the same objects back (no copies) wherever nothing was redacted.
 */
import { describe, expect, it } from 'vitest';
import { redactValue } from '../../../src/engine/serve/redact.js';
import type { WireRow } from '../../../src/core/types.js';

const R = 'REDACTED';

/** A page of rows, redacted as the encoder redacts each of them. */
const redactRows = (rows: WireRow[]) => redactValue(rows) as WireRow[];

/** A row shaped like logs.all's: every nested object a one-element array. */
function edgeRow(ip: string, email: string): WireRow {
  return {
    id: '550e8400-e29b-41d4-a716-446655440000',
    timestamp: 1714557600000000,
    event_message: `GET | 200 | ${ip} | https://p.cannery.dev/rest/v1/t?email=${email}`,
    metadata: [
      {
        request: [
          {
            method: 'GET',
            search: `?email=${email}`,
            headers: [{ x_real_ip: ip, user_agent: 'curl/8.6.0', forwarded: [ip, '10.0.0.1', 'unknown'] }],
          },
        ],
        response: [{ status_code: 200, origin_time: 12.5, cached: false, note: null }],
      },
    ],
  };
}

describe('redactValue over rows', () => {
  it('redacts strings three levels down, in arrays of strings, and in top-level strings', () => {
    const [row] = redactRows([edgeRow('203.0.113.9', 'alice@example.com')]);
    expect(row).toEqual({
      id: '550e8400-e29b-41d4-a716-446655440000',
      timestamp: 1714557600000000,
      event_message: `GET | 200 | ${R} | https://p.cannery.dev/rest/v1/t?email=${R}`,
      metadata: [
        {
          request: [{ method: 'GET', search: `?email=${R}`, headers: [{ x_real_ip: R, user_agent: 'curl/8.6.0', forwarded: [R, R, 'unknown'] }] }],
          response: [{ status_code: 200, origin_time: 12.5, cached: false, note: null }],
        },
      ],
    });
  });

  it('leaves keys alone, even ones that look like addresses', () => {
    const rows: WireRow[] = [{ '10.0.0.1': 'x', 'alice@example.com': ['2001:db8::1'], nested: [{ 'fe80::1': 5 }] }];
    expect(redactRows(rows)).toEqual([{ '10.0.0.1': 'x', 'alice@example.com': [R], nested: [{ 'fe80::1': 5 }] }]);
  });

  it('leaves numbers, booleans and nulls alone', () => {
    const row: WireRow = { n: 10, f: 1.5, b: true, z: null, list: [1, false, null] };
    expect(redactRows([row])[0]).toBe(row);
  });

  it('never mutates its input', () => {
    const rows = [edgeRow('2001:db8::7', 'bob@example.org')];
    const before = structuredClone(rows);
    const redacted = redactRows(rows);
    expect(rows).toEqual(before);
    expect(redacted).not.toBe(rows);
  });

  it('returns the same page when nothing matched: no copies of rows, arrays or objects', () => {
    const rows: WireRow[] = [
      { id: 'a', metadata: [{ request: [{ path: '/rest/v1/todos', ua: 'Chrome/126.0.0.0' }] }] },
      { id: 'b', metadata: [{ time: '12:34:56', tags: ['x', 'y'] }] },
    ];
    expect(redactRows(rows)).toBe(rows);
  });

  it('copies only along the path to a change: untouched siblings are the same objects', () => {
    const clean = { path: '/rest/v1/todos' };
    const row: WireRow = { metadata: [{ request: [clean], response: [{ ip: '10.0.0.1' }] }] };
    const untouched: WireRow = { id: 'x' };
    const redacted = redactRows([row, untouched]);
    expect(redacted[1]).toBe(untouched);
    const metadata = redacted[0]!.metadata as { request: unknown[]; response: unknown[] }[];
    expect(metadata[0]!.request[0]).toBe(clean);
    expect(metadata[0]!.response).toEqual([{ ip: R }]);
  });

  it('redactValue takes any wire value', () => {
    expect(redactValue('10.0.0.1')).toBe(R);
    expect(redactValue(['a@example.com', 3])).toEqual([R, 3]);
    expect(redactValue(7)).toBe(7);
    expect(redactValue(null)).toBe(null);
  });
});
