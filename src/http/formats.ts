/**
 * Response formats, chosen by the Accept header: JSON (the default), NDJSON and CSV.
 *
 * The engine answers, and the cache stores, one encoding: the JSON bytes of encode.ts. The other
 * two are made from those bytes when asked for, so every format shares one cache entry and one
 * backend query per answer, and a JSON hit (nearly every request) still re-serialises nothing.
 * Each format has one encoder: encode.ts for JSON, whose rows' bytes are NDJSON's lines, and
 * csv.ts for CSV. Both stream the stored rows a chunk at a time (answer-rows.ts), never parsing
 * the answer whole.
 */
import { CanneryError } from '../core/errors.js';
import type { WireRow } from '../core/types.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { answerRows } from './answer-rows.js';
import { csvHeader, csvRow } from './csv.js';
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

const NEWLINE = new Uint8Array([0x0a]);

const NDJSON_FORMAT: Format = {
  contentType: 'application/x-ndjson',
  // Each line is the row's JSON exactly as the JSON answer holds it: nothing is parsed.
  body: (json) => streamChunks(answerRows(json), (row, parts) => parts.push(row, NEWLINE)),
  etag: (jsonEtag) => suffixed(jsonEtag, 'ndjson'),
};

const CSV_FORMAT: Format = {
  contentType: 'text/csv; charset=utf-8; header=present',
  body(json) {
    let columns: string[] | undefined;
    return streamChunks(answerRows(json), (bytes, parts) => {
      const row = JSON.parse(decoder.decode(bytes)) as WireRow;
      // Every row of one answer has the same columns, in the query's order. With no rows there
      // is no header: the column names come from the rows.
      if (!columns) {
        columns = Object.keys(row);
        parts.push(encoder.encode(csvHeader(columns)));
      }
      parts.push(encoder.encode(csvRow(columns, row)));
    });
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
const encoder = new TextEncoder();

/**
 * Rows per chunk, and bytes: one chunk per row would cost more in the stream than in the
 * writing, and one chunk of many large rows would hold the event loop while it is made.
 */
const ROWS_PER_CHUNK = 100;
const BYTES_PER_CHUNK = 64 * 1024;

/**
 * The answer's rows as a stream, written a chunk at a time as the client reads, with a turn of
 * the event loop before each chunk after the first: a socket that takes every write at once
 * would otherwise have the whole answer written in one go.
 */
function streamChunks(nextRow: () => Uint8Array | undefined, write: (row: Uint8Array, parts: Uint8Array[]) => void): ReadableStream<Uint8Array> {
  let started = false;
  return new ReadableStream({
    async pull(controller) {
      if (started) await nextTurn();
      started = true;
      const parts: Uint8Array[] = [];
      let bytes = 0;
      for (let rows = 0; rows < ROWS_PER_CHUNK && bytes < BYTES_PER_CHUNK; rows++) {
        const row = nextRow();
        if (!row) {
          if (parts.length) controller.enqueue(Buffer.concat(parts));
          controller.close();
          return;
        }
        const before = parts.length;
        write(row, parts);
        for (let index = before; index < parts.length; index++) bytes += parts[index]!.byteLength;
      }
      controller.enqueue(Buffer.concat(parts));
    },
  });
}

/** `"abc"` -> `"abc-csv"`: still strong, and distinct per representation of the same bytes. */
function suffixed(etag: string, format: string): string {
  return `${etag.slice(0, -1)}-${format}"`;
}
