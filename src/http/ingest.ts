/**
 * Events in over HTTP (docs/ingest.md): `POST /api/sources/<name>/events` (NDJSON or a JSON array)
 * and Logflare's `POST /api/logs?source_name=<name>` or `?source=<uuid>` (one event or
 * `{"batch": [...]}`).
 *
 * A request is read whole before anything is queued, within CANNERY_INGEST_MAX_BYTES counted on
 * the bytes sent and again on the bytes a gzip body unpacks to (zlib stops there: a small body
 * that unpacks to gigabytes costs the bound, not the gigabytes). Its events are read and checked
 * against the source's columns on a worker thread (engine/ingest/stager.ts, events.ts), then handed
 * to the one writer, and the answer waits for their commit.
 */
import { gunzip } from 'node:zlib';
import type { H3Event } from 'h3';
import { CanneryError } from '../core/errors.js';
import type { Grant } from '../access/grant.js';
import { sourceId } from '../config/sources.js';
import { mayIngest } from '../access/grant.js';
import type { BodyKind, EventDialect, IngestSource } from '../engine/ingest/events.js';
import type { IngestQueue } from '../engine/ingest/queue.js';
import { StagingRefused, type EventStager } from '../engine/ingest/stager.js';
import type { Metrics } from './metrics.js';
import { declaredOver, readBodyBytes, RequestAborted, type NodeExchange } from './request-body.js';
import { recordOf } from './request-record.js';

export interface IngestOptions {
  queue: IngestQueue;
  /** Reads and checks a request's events off the event loop. */
  stager: EventStager;
  /** The sources that take events, by name. */
  sources: ReadonlyMap<string, IngestSource>;
  /** CANNERY_INGEST_MAX_BYTES: a body's most, sent and unpacked. */
  maxBytes: number;
  /** The time received (Logflare's events without a timestamp take it). */
  clock?: () => Date;
}

/** How a request names its source: by name, or (Logflare's `source=`) by its UUID (config/sources.ts sourceId). */
export type SourceKey = { name: string } | { id: string };

const NDJSON_TYPES = new Set(['application/x-ndjson', 'application/ndjson', 'application/jsonl', 'application/x-jsonlines', 'application/json-seq']);

export function ingestHandler(ingest: IngestOptions | undefined, metrics: Metrics) {
  return async (event: H3Event, grant: Grant, key: SourceKey, dialect: EventDialect): Promise<Response> => {
    const record = recordOf(event);
    if (ingest === undefined) {
      throw new CanneryError('not_found', 'this server takes no events: start `cannery serve` with CANNERY_INGEST=true on a DuckDB database file (docs/ingest.md)');
    }
    const source = findSource(ingest.sources, key);
    if (source !== undefined) record.source = source.declaration.name;
    // Before the source's 404: a credential that may send nowhere learns nothing of which sources exist.
    if (grant.ingest.length === 0) throw new CanneryError('forbidden', `${grant.name} may not send events; a key or token needs an ingest scope naming the source (docs/ingest.md)`);
    if (source === undefined) {
      const sendable = [...ingest.sources.values()].filter(({ declaration }) => mayIngest(grant, declaration.name));
      const listed = sendable.map(({ declaration }) => ('id' in key ? `${declaration.name} (${sourceId(declaration)})` : declaration.name)).join(', ');
      const asked = 'id' in key ? `with the id ${JSON.stringify(key.id)}` : JSON.stringify(key.name);
      throw new CanneryError('not_found', `no source ${asked}; sources ${grant.name} may send to: ${listed || 'none'}`);
    }
    if (!mayIngest(grant, source.declaration.name)) throw new CanneryError('forbidden', `${grant.name} may not send events to ${source.declaration.name}`);
    let bytes = 0;
    let events = 0;
    try {
      const body = await readBody(event, ingest.maxBytes);
      bytes = body.sent;
      const kind = mediaType(event.req.headers.get('content-type'), dialect);
      const lines = await ingest.stager.stage(source, body.bytes, kind, dialect, ingest.clock?.() ?? new Date()).catch((error: unknown) => {
        if (!(error instanceof StagingRefused)) throw error;
        events = error.events;
        throw error.cause;
      });
      events = lines.length;
      const receipt = await ingest.queue.submit(source.declaration.name, lines);
      metrics.ingested(source.declaration.name, 'accepted', receipt.accepted, bytes);
      return new Response(JSON.stringify(receipt), { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' } });
    } catch (error) {
      if (!(error instanceof RequestAborted)) metrics.ingested(source.declaration.name, 'rejected', events, bytes);
      throw error;
    }
  };
}

/** A UUID in any case finds its source, as Logflare's does. */
function findSource(sources: ReadonlyMap<string, IngestSource>, key: SourceKey): IngestSource | undefined {
  if ('name' in key) return sources.get(key.name);
  const id = key.id.toLowerCase();
  for (const source of sources.values()) if (sourceId(source.declaration) === id) return source;
  return undefined;
}

function mediaType(header: string | null, dialect: EventDialect): BodyKind {
  const type = (header ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return 'json';
  if (NDJSON_TYPES.has(type)) return 'ndjson';
  // Logflare's clients all send JSON; one that names no type is read as that.
  if (dialect === 'logflare' && type === '') return 'json';
  throw new CanneryError('unsupported_media_type', `send events as application/x-ndjson (one JSON object a line) or application/json (an array of objects)${header ? `, not ${type}` : '; the request names no Content-Type'}`);
}

/** The body's bytes (unpacked when gzip), and the bytes sent. */
async function readBody(event: H3Event, maxBytes: number): Promise<{ bytes: Buffer; sent: number }> {
  const exchange = event.runtime?.node as NodeExchange | undefined;
  if (exchange === undefined) throw new CanneryError('internal', 'ingest needs the node server');
  const tooLarge = () => new CanneryError('body_too_large', `an ingest request may hold at most ${maxBytes} bytes (CANNERY_INGEST_MAX_BYTES), unpacked; send fewer events a request`);
  if (declaredOver(event.req.headers.get('content-length'), maxBytes, exchange)) throw tooLarge();
  const encoding = (event.req.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== 'gzip' && encoding !== 'x-gzip') {
    throw new CanneryError('unsupported_media_type', `Content-Encoding ${encoding} is not read here: send gzip, or no encoding`);
  }
  const sent = await readBodyBytes(exchange, maxBytes, tooLarge);
  if (encoding === 'identity') return { bytes: sent, sent: sent.length };
  const unpacked = await new Promise<Buffer>((resolve, reject) =>
    gunzip(sent, { maxOutputLength: maxBytes }, (error, result) => {
      if (error === null) return resolve(result);
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return reject(tooLarge());
      reject(new CanneryError('invalid_header', `the body is not the gzip its Content-Encoding says (${error.message})`));
    }),
  );
  return { bytes: unpacked, sent: sent.length };
}
