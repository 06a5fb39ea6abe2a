/**
 * `cannery import` beside a `serve` that holds the database for writing (CANNERY_INGEST=true):
 * the import hands the file's path to the server, which loads it between its ingest commits with
 * the import's own ledger and transaction (ingest-target.ts importFile), instead of stopping at
 * the file's lock. The two talk over a Unix socket beside the database file, owner-only (0600):
 * only a process of the user who runs the server, on the same machine (it names a file there), can
 * hand a file over; nothing of it is reachable over the network.
 */
import { chmod, rm } from 'node:fs/promises';
import { createServer, request, type IncomingMessage } from 'node:http';
import { resolve } from 'node:path';
import type { DuckDbIngestTarget, HandedImport } from '../backends/duckdb/ingest-target.js';
import type { LedgerEntry } from '../backends/duckdb/import/ledger.js';

/** The socket of the server holding `dbPath`. */
export function handoffSocketPath(dbPath: string): string {
  return `${resolve(dbPath)}.import.sock`;
}

interface HandoffRequest {
  source: string;
  path: string;
  format?: string;
  batchId: string;
}

/** Listens for handed-over imports until closed; a socket left by a killed server is replaced (this process holds the database). */
export async function listenForImports(dbPath: string, target: DuckDbIngestTarget, log: (line: string) => void): Promise<{ close(): Promise<void> }> {
  const path = handoffSocketPath(dbPath);
  await rm(path, { force: true });
  const server = createServer((req, res) => {
    void (async () => {
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      try {
        const asked = JSON.parse(await bodyOf(req)) as HandoffRequest;
        log(`import ${asked.batchId}: ${asked.path} -> ${asked.source}, handed over by \`cannery import\``);
        answer(200, await target.importFile(asked.source, asked.path, asked.format, asked.batchId));
      } catch (error) {
        answer(400, { error: (error as Error).message });
      }
    })();
  });
  await new Promise<void>((done, fail) => server.once('error', fail).listen(path, done));
  await chmod(path, 0o600);
  return {
    async close() {
      await new Promise((done) => server.close(done));
      await rm(path, { force: true });
    },
  };
}

/** Hands the import to the server holding `dbPath`; undefined when no server listens there. */
export async function handImportOver(dbPath: string, asked: HandoffRequest): Promise<HandedImport | undefined> {
  const socketPath = handoffSocketPath(dbPath);
  const { status, text } = await new Promise<{ status: number; text: string } | undefined>((done, fail) => {
    const req = request({ socketPath, method: 'POST', path: '/' }, (res) => {
      bodyOf(res).then((text) => done({ status: res.statusCode ?? 500, text }), fail);
    });
    // No socket, or a socket no one listens on: the holder takes no files.
    req.once('error', (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' || error.code === 'ECONNREFUSED' ? done(undefined) : fail(error)));
    req.end(JSON.stringify(asked));
  }).then((answer) => answer ?? { status: 0, text: '' });
  if (status === 0) return undefined;
  const body = JSON.parse(text) as Omit<HandedImport, 'previous'> & { error?: string; previous?: Omit<LedgerEntry, 'committedAt'> & { committedAt: string } };
  if (status !== 200) throw new Error(body.error ?? `the server answered ${status}`);
  const { previous, error: _none, ...result } = body;
  return previous === undefined ? result : { ...result, previous: { ...previous, committedAt: new Date(previous.committedAt) } };
}

function bodyOf(message: IncomingMessage): Promise<string> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.once('end', () => done(Buffer.concat(chunks).toString('utf8')));
    message.once('error', fail);
  });
}
