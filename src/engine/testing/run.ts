/**
 * Runs one endpoint test: a fresh scratch database holding the test's events, the request sent
 * through the service as HTTP would send it (parameters checked, sandbox SQL composed, rows
 * capped and redacted), at the test's fixed execution time.
 */
import type { EndpointTest } from '../../config/endpoint-tests-file.js';
import { isCanneryError } from '../../core/errors.js';
import type { WireRow } from '../../core/types.js';
import { InvalidEvent, type ScratchEngine } from '../backend.js';
import { compiledFor } from '../compile/compile.js';
import type { CompiledEndpoint } from '../compiled-endpoint.js';
import { createRegistry } from '../serve/registry.js';
import { SANDBOX_PARAM } from '../serve/params.js';
import { createService } from '../serve/service.js';
import { normaliseTimestamp } from '../serve/timestamp.js';

/** What the endpoint answered: rows, or the error a caller would get. */
export type TestAnswer = { rows: WireRow[]; error?: undefined } | { rows?: undefined; error: { code: string; message: string; param?: string } };

/** The test itself cannot run (an event the importer refuses, a `now` that is no date); `line` is where to look. */
export class TestSetupError extends Error {
  readonly line: number;

  constructor(message: string, line: number) {
    super(message);
    this.name = 'TestSetupError';
    this.line = line;
  }
}

/** Long enough for any query on a test's handful of rows; a hang fails the test instead of the run. */
const TEST_QUERY_TIMEOUT_MS = 10_000;

export async function answerTest(endpoint: CompiledEndpoint, test: EndpointTest, engine: ScratchEngine): Promise<TestAnswer> {
  const canonical = normaliseTimestamp(test.now);
  if (canonical === undefined) throw new TestSetupError(`now "${test.now}" is not a valid ISO 8601 timestamp with a zone`, test.line);
  const now = new Date(canonical);
  let backend;
  try {
    backend = await engine.open(test.events);
  } catch (error) {
    if (!(error instanceof InvalidEvent)) throw error;
    const line = test.eventLines[error.source]?.[error.index] ?? test.line;
    throw new TestSetupError(`events.${error.source}[${error.index}]: ${error.message}`, line);
  }
  // The test's events decide how its database stores each record: the endpoint's SQL is written for it.
  const served = compiledFor(endpoint, backend.dialect);
  const service = createService({
    registry: createRegistry([served]),
    backend,
    timeoutMs: TEST_QUERY_TIMEOUT_MS,
    clock: () => now,
    log: () => {},
  });
  try {
    const params: [string, string][] = Object.entries(test.request.params);
    if (test.request.sql !== undefined) params.push([SANDBOX_PARAM, test.request.sql]);
    const outcome = await service.query(served, params, { redactPii: test.request.redactPii });
    const body = JSON.parse(Buffer.from(outcome.body).toString('utf8')) as { result: WireRow[] };
    return { rows: body.result };
  } catch (error) {
    if (!isCanneryError(error)) throw error;
    return { error: { code: error.code, message: error.message, ...(error.param === undefined ? {} : { param: error.param }) } };
  } finally {
    await service.close();
    await backend.close();
  }
}
