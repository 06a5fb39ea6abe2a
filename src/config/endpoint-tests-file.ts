/**
 * Endpoint test files (`endpoints/tests/*.yaml`, schemas/endpoint-tests.schema.json): parsed,
 * validated, and flattened into one self-contained test each, with the file's defaults (`now`,
 * `events`) applied and the line of everything a problem may be reported at.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Problem } from '../core/types.js';
import { isYamlFileName } from './endpoint-folder.js';
import { schemaValidator } from './json-schema.js';
import { schemaProblems } from './schema-problems.js';
import { readYaml, type YamlSource } from './yaml-source.js';

export const ENDPOINT_TESTS_SCHEMA_URL = new URL('../../schemas/endpoint-tests.schema.json', import.meta.url);
const validateTestData = schemaValidator(ENDPOINT_TESTS_SCHEMA_URL);

/** The folder of test files inside an endpoints folder; the endpoint loader reads no subfolder. */
export const TESTS_FOLDER = 'tests';

export type JsonObject = Record<string, unknown>;

export type TestExpectation =
  | { kind: 'rows'; rows: JsonObject[] }
  | { kind: 'includes'; rows: JsonObject[] }
  | { kind: 'error'; code: string; param?: string };

export interface TestRequest {
  /** Query-string parameters, as text. */
  params: Record<string, string>;
  sql?: string;
  redactPii: boolean;
}

export interface EndpointTest {
  name: string;
  /** The line of the test's entry in the file. */
  line: number;
  /** The execution time, as written (ISO 8601 with a zone). */
  now: string;
  /** Input events by source: the test's own, else the file's. */
  events: Record<string, JsonObject[]>;
  /** The line of each event, by source and index, so a bad event is reported where it is written. */
  eventLines: Record<string, number[]>;
  request: TestRequest;
  expect: TestExpectation;
}

export interface EndpointTestFile {
  file: string;
  /** The endpoint under test, by name or id; absent when the file did not load. */
  endpoint?: string;
  /** The line of the `endpoint` field. */
  endpointLine: number;
  /**
   * Every source named under an `events:` of the file (its own and each test's), at the line of
   * its name: the schema takes any name (a project declares its own sources), so the names are
   * checked against the project's sources in code (endpoint-tests-check.ts).
   */
  eventSources: { name: string; line: number }[];
  tests: EndpointTest[];
  problems: Problem[];
}

interface TestData {
  name: string;
  now?: string;
  events?: Record<string, JsonObject[]>;
  request?: { params?: Record<string, string | number | boolean>; sql?: string; redact_pii?: boolean };
  expect: { rows?: JsonObject[]; includes?: JsonObject[]; error?: { code: string; param?: string } };
}

interface FileData {
  endpoint: string;
  now?: string;
  events?: Record<string, JsonObject[]>;
  tests: TestData[];
}

/** Every `*.yaml` / `*.yml` file of `<endpointsDir>/tests`, sorted by name; none when there is no such folder. */
export async function loadEndpointTests(endpointsDir: string): Promise<EndpointTestFile[]> {
  const dir = join(endpointsDir, TESTS_FOLDER);
  let names: string[];
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    names = entries
      .filter((entry) => !entry.isDirectory() && isYamlFileName(entry.name))
      .map((entry) => entry.name)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new Error(`endpoint tests folder ${dir} cannot be read (${(error as Error).message})`, { cause: error });
  }
  return Promise.all(
    names.map(async (name) => {
      const file = join(dir, name);
      try {
        return parseEndpointTestFile(await readFile(file, 'utf8'), file);
      } catch (error) {
        return { file, endpointLine: 1, eventSources: [], tests: [], problems: [{ file, line: 1, message: `cannot read the file: ${(error as Error).message}` }] };
      }
    }),
  );
}

export function parseEndpointTestFile(text: string, file: string): EndpointTestFile {
  const source = readYaml(text, file);
  const failed = (problems: Problem[]): EndpointTestFile => ({ file, endpointLine: 1, eventSources: [], tests: [], problems });
  if (source.problems.length) return failed(source.problems);
  const errors = validateTestData(source.data);
  if (errors.length) return failed(schemaProblems(errors, source, file, 'a mapping with endpoint and tests'));

  const data = source.data as FileData;
  const problems: Problem[] = [];
  const seen = new Map<string, number>();
  const tests = data.tests.map((test, index): EndpointTest => {
    const at = ['tests', index];
    const line = source.lineOf(at);
    const first = seen.get(test.name);
    if (first !== undefined) problems.push({ file, line, field: `tests[${index}].name`, message: `test name "${test.name}" is already used on line ${first}` });
    else seen.set(test.name, line);
    const now = test.now ?? data.now;
    if (now === undefined) {
      problems.push({ file, line, field: `tests[${index}].now`, message: `test "${test.name}" has no now: give the execution time in the test or at the top of the file` });
    }
    const ownEvents = test.events !== undefined;
    const events = test.events ?? data.events ?? {};
    return {
      name: test.name,
      line,
      now: now ?? '',
      events,
      eventLines: eventLines(source, ownEvents ? [...at, 'events'] : ['events'], events),
      request: {
        params: Object.fromEntries(Object.entries(test.request?.params ?? {}).map(([name, value]) => [name, String(value)])),
        ...(test.request?.sql !== undefined ? { sql: test.request.sql } : {}),
        redactPii: test.request?.redact_pii ?? false,
      },
      expect: expectation(test.expect),
    };
  });
  const named = (events: Record<string, JsonObject[]> | undefined, at: (string | number)[]) =>
    Object.keys(events ?? {}).map((name) => ({ name, line: source.lineOf([...at, name]) }));
  const eventSources = [...named(data.events, ['events']), ...data.tests.flatMap((test, index) => named(test.events, ['tests', index, 'events']))];
  return { file, endpoint: data.endpoint, endpointLine: source.lineOf(['endpoint']), eventSources, tests, problems };
}

function expectation(expect: TestData['expect']): TestExpectation {
  if (expect.rows) return { kind: 'rows', rows: expect.rows };
  if (expect.includes) return { kind: 'includes', rows: expect.includes };
  const { code, param } = expect.error!;
  return param === undefined ? { kind: 'error', code } : { kind: 'error', code, param };
}

function eventLines(source: YamlSource, at: (string | number)[], events: Record<string, JsonObject[]>): Record<string, number[]> {
  return Object.fromEntries(Object.entries(events).map(([name, list]) => [name, list.map((_, index) => source.lineOf([...at, name, index]))]));
}
