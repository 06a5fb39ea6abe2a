/**
 * `cannery new NAME [--endpoints DIR] [--sources DIR] [--source NAME]`: a new endpoint file (fresh
 * UUID, the schema line, every field commented) and its test file. Both work as written: `check`
 * passes and the tests pass, so the first edit starts from something green. The endpoint reads
 * `--source`, else the project's first declared source (sources/*.yaml), else the edge logs; the
 * sources it could read are listed in its query's comment. The schema lines point at cannery's
 * schemas where the folder's repository has them (schema-reference.ts).
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseEndpointFile } from '../config/endpoint-file.js';
import { ENDPOINT_TESTS_SCHEMA_URL, TESTS_FOLDER } from '../config/endpoint-tests-file.js';
import { readSettings } from '../config/settings.js';
import type { SourceDeclaration } from '../config/source-declaration.js';
import { BUILT_IN_SOURCES, sourceNames } from '../config/sources.js';
import { didYouMean } from '../config/spelling.js';
import { UsageError, type Command, type Flags } from './command.js';
import { declaredEndpointTemplate, declaredTestTemplate } from './new-over-declared.js';
import { endpointTemplateHead } from './endpoint-template-head.js';
import { schemaReference } from './schema-reference.js';
import { declaredSources } from './source-folder.js';

/** The log source the template reads when the project declares none of its own. */
const DEFAULT_LOG_SOURCE = 'cloudflare.logs.prod';

export const newCommand: Command = {
  options: { endpoints: { type: 'string' }, sources: { type: 'string' }, source: { type: 'string' } },
  async run(flags, positionals) {
    const [name] = positionals;
    if (!name || positionals.length > 1) throw new UsageError();
    const dir = typeof flags.endpoints === 'string' ? flags.endpoints : readSettings().endpointsDir;
    const { source, offered, declared } = await chosenSource(flags, dir);
    const id = randomUUID();
    const endpoint = typeof source === 'string' ? endpointTemplate(name, id, dir, source) : declaredEndpointTemplate(name, id, dir, source, declared);
    // The same checks as every endpoint file: a name the schema refuses is refused here.
    const [problem] = parseEndpointFile(endpoint, `${name}.yaml`).problems;
    if (problem) throw new Error(problem.message);
    const endpointFile = join(dir, `${name}.yaml`);
    const testFile = join(dir, TESTS_FOLDER, `${name}.yaml`);
    // Never overwrite: an existing file is somebody's work. Both are checked before either is written.
    for (const file of [endpointFile, testFile]) {
      if (existsSync(file)) throw new Error(`${file} exists already; cannery new writes only new files`);
    }
    await mkdir(join(dir, TESTS_FOLDER), { recursive: true });
    await writeFile(endpointFile, endpoint, { flag: 'wx' });
    await writeFile(testFile, typeof source === 'string' ? testTemplate(name, dir, source) : declaredTestTemplate(name, dir, source), { flag: 'wx' });
    console.log(`wrote ${endpointFile}\nwrote ${testFile}`);
    const read = typeof source === 'string' ? source : source.name;
    const others = offered.filter((other) => other !== read);
    console.error(`over ${read}${others.length > 0 ? `; \`--source NAME\` reads another: ${others.join(', ')}` : ''}`);
    console.error(`next: edit the query and the tests, then \`cannery check\`, \`cannery test --filter ${name}\` and \`cannery describe ${name}\``);
    return 0;
  },
};

/**
 * The source the new endpoint reads: `--source` (a declared source or a log source), else the
 * project's first declared one, else the edge logs; and every source it could read, the
 * project's own first.
 */
async function chosenSource(flags: Flags, dir: string): Promise<{ source: SourceDeclaration | string; offered: string[]; declared: string[] }> {
  const sources = await declaredSources(flags, dir);
  const declared = sources.map((source) => source.name);
  const offered = [...declared, ...sourceNames(BUILT_IN_SOURCES)];
  const wanted = typeof flags.source === 'string' ? flags.source : undefined;
  if (wanted === undefined) return { source: sources[0] ?? DEFAULT_LOG_SOURCE, offered, declared };
  const source = sources.find((known) => known.name === wanted) ?? sourceNames(BUILT_IN_SOURCES).find((known) => known === wanted);
  if (source === undefined) throw new Error(`--source ${wanted} is not a source${didYouMean(wanted, offered)}; sources: ${offered.join(', ')}`);
  return { source, offered, declared };
}

/**
 * An endpoint file over the log source `source` (every log source has id, timestamp,
 * event_message and project), to be written in the endpoints folder `dir`, its schema line
 * pointing at the schema from there.
 */
export function endpointTemplate(name: string, id: string, dir: string, source = DEFAULT_LOG_SOURCE): string {
  const description = `${source === DEFAULT_LOG_SOURCE ? 'Recent edge log records' : `Recent ${source} records`} of one project, newest first.`;
  return `${endpointTemplateHead(name, id, dir, description)}params:
  # Each @name the query uses: type string, integer, number or boolean; strings may have
  # enum: [a, b] or format: regex | date-time.
  project:
    type: string
    required: true
    description: Project identifier. Only its records are returned.
# BigQuery Standard SQL. Sources are read by name in backticks; nested fields with
# \`cross join unnest(t.metadata) as m\`.
query: |
  select t.id, t.timestamp, t.event_message
  from \`${source}\` as t
  where t.project = @project
  order by t.timestamp desc
  limit 100
`;
}

/** The test file of `name` over the log source `source`, to be written in the tests/ of the endpoints folder `dir`. */
export function testTemplate(name: string, dir: string, source = DEFAULT_LOG_SOURCE): string {
  return `# yaml-language-server: $schema=${schemaReference(join(dir, TESTS_FOLDER), dir, ENDPOINT_TESTS_SCHEMA_URL)}
#
# Tests of ${name}: \`cannery test --filter ${name}\`. Each test runs on a fresh in-memory
# database holding \`events\` (as \`cannery import\` reads them), at the execution time \`now\`.
endpoint: ${name}
now: "2024-05-01T12:00:00Z"
events:
  ${source}:
    - {id: a-1, timestamp: "2024-05-01T11:00:00Z", event_message: first, project: a}
    - {id: a-2, timestamp: "2024-05-01T11:30:00Z", event_message: second, project: a}
    - {id: b-1, timestamp: "2024-05-01T11:45:00Z", event_message: another project, project: b}
tests:
  # rows: the whole answer, in order; a row lists only the columns it checks.
  - name: returns the project's records, newest first
    request: {params: {project: a}}
    expect:
      rows:
        - {id: a-2, event_message: second}
        - {id: a-1, timestamp: "2024-05-01T11:00:00Z"}

  # includes: rows that must be in the answer, in any order.
  - name: leaves other projects out
    request: {params: {project: b}}
    expect:
      includes:
        - {id: b-1}

  # error: the code (and the parameter) a caller would get.
  - name: project is required
    expect:
      error: {code: missing_parameter, param: project}
`;
}
