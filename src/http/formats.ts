/**
 * Response formats, chosen by the Accept header: JSON (the default), NDJSON and CSV.
 *
 * The engine answers, and the cache stores, one encoding: the JSON bytes of encode.ts. The other
 * two are made from those bytes when asked for, so every format shares one cache entry and one
 * backend query per answer, and a JSON hit (nearly every request) still re-serialises nothing.
 * Each format has one encoder: encode.ts for JSON, a JSON text per row for NDJSON, csv.ts for CSV.
 */
import { CanneryError } from '../core/errors.js';
import type { WireRow } from '../core/types.js';
import { csvColumns, csvHeader, csvRow } from './csv.js';
import { JSON_CONTENT_TYPE } from './errors.js';

export interface Format {
  readonly contentType: string;
  /** The answer's body, from the engine's JSON bytes. */
  body(json: Uint8Array): Uint8Array | ReadableStream<Uint8Array>;
  /** This body's ETag, from the JSON bytes' one: each representation has its own. */
  etag(jsonEtag: string): string;
}

export const JSON_FORMAT: Format = {
  contentType: JSON_CONTENT_TYPE,
  body: (json) => json,
  etag: (jsonEtag) => jsonEtag,
};

const NDJSON_FORMAT: Format = {
  contentType: 'application/x-ndjson',
  body: (json) => streamLines(rowsOf(json), (row) => `${JSON.stringify(row)}\n`, ''),
  etag: (jsonEtag) => suffixed(jsonEtag, 'ndjson'),
};

const CSV_FORMAT: Format = {
  contentType: 'text/csv; charset=utf-8; header=present',
  body(json) {
    const rows = rowsOf(json);
    const columns = csvColumns(rows);
    // With no rows there are no column names to write (they come from the rows).
    return streamLines(rows, (row) => csvRow(columns, row), columns.length ? csvHeader(columns) : '');
  },
  etag: (jsonEtag) => suffixed(jsonEtag, 'csv'),
};

/** The formats by media type, in the order the server prefers when a client likes several as much. */
const MEDIA_TYPES: [string, Format][] = [
  ['application/json', JSON_FORMAT],
  ['application/x-ndjson', NDJSON_FORMAT],
  ['text/csv', CSV_FORMAT],
];

interface Range {
  type: string;
  subtype: string;
  q: number;
}

/**
 * The format for an Accept header (RFC 9110 12.5.1): the acceptable one with the highest q,
 * a media type named outright winning over a wildcard at equal q. Accept naming none of them
 * (text/html, a malformed value) gets JSON; only a client that refuses JSON (q=0) and accepts
 * no other format gets 406.
 */
export function negotiate(accept: string | null): Format {
  // What nearly every client sends, decided without parsing.
  if (accept === null || accept === '' || accept === '*/*' || accept === 'application/json') return JSON_FORMAT;
  const ranges = parseAccept(accept);
  let best: { format: Format; q: number; specificity: number } | undefined;
  let jsonRefused = false;
  for (const [mediaType, format] of MEDIA_TYPES) {
    const match = bestMatch(ranges, mediaType);
    if (!match) continue;
    if (match.q === 0) {
      if (format === JSON_FORMAT) jsonRefused = true;
      continue;
    }
    if (!best || match.q > best.q || (match.q === best.q && match.specificity > best.specificity)) best = { format, ...match };
  }
  if (best) return best.format;
  if (jsonRefused) {
    throw new CanneryError('not_acceptable', `Accept refuses every format cannery sends: ${MEDIA_TYPES.map(([type]) => type).join(', ')}`);
  }
  return JSON_FORMAT;
}

function parseAccept(accept: string): Range[] {
  const ranges: Range[] = [];
  for (const part of accept.split(',')) {
    const [mediaRange = '', ...parameters] = part.split(';');
    const [type, subtype] = mediaRange.trim().toLowerCase().split('/');
    if (!type || !subtype) continue;
    let q = 1;
    for (const parameter of parameters) {
      const [name, value] = parameter.split('=');
      if (name?.trim().toLowerCase() === 'q') {
        const parsed = Number(value?.trim());
        q = Number.isFinite(parsed) ? Math.min(1, Math.max(0, parsed)) : 1;
      }
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The q of the most specific range matching `mediaType` (RFC 9110: the most specific one decides). */
function bestMatch(ranges: readonly Range[], mediaType: string): { q: number; specificity: number } | undefined {
  const [type, subtype] = mediaType.split('/');
  let found: { q: number; specificity: number } | undefined;
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype ? 2 : range.type === type && range.subtype === '*' ? 1 : range.type === '*' && range.subtype === '*' ? 0 : -1;
    if (specificity >= 0 && (!found || specificity > found.specificity)) found = { q: range.q, specificity };
  }
  return found;
}

const decoder = new TextDecoder();

function rowsOf(json: Uint8Array): WireRow[] {
  return (JSON.parse(decoder.decode(json)) as { result: WireRow[] }).result;
}

/** Rows per chunk: one chunk per row would cost more in the stream than in the encoding. */
const ROWS_PER_CHUNK = 100;

/** The rows as a stream of lines, encoded a chunk at a time as the client reads. */
function streamLines(rows: readonly WireRow[], line: (row: WireRow) => string, head: string): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  let text = head;
  return new ReadableStream({
    pull(controller) {
      const end = Math.min(rows.length, next + ROWS_PER_CHUNK);
      for (; next < end; next++) text += line(rows[next]!);
      if (text !== '') controller.enqueue(encoder.encode(text));
      text = '';
      if (next >= rows.length) controller.close();
    },
  });
}

/** `"abc"` -> `"abc-csv"`: still strong, and distinct per representation of the same bytes. */
function suffixed(etag: string, format: string): string {
  return `${etag.slice(0, -1)}-${format}"`;
}
