/**
 * `cannery init`: cannery in one's own repository. Writes, in the current folder, endpoints/ with
 * an example endpoint over a log source and its tests, sources/ with an example source and
 * endpoints/ an endpoint over it and its tests (all passing as written, their schema lines
 * pointing into node_modules/cannery), and the GitHub Actions recipe as
 * .github/workflows/cannery.yml. Never overwrites a file; writes no example into an endpoints/
 * that has endpoints already.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isYamlFileName } from '../config/endpoint-folder.js';
import { TESTS_FOLDER } from '../config/endpoint-tests-file.js';
import { UsageError, type Command } from './command.js';
import { EXAMPLE_SOURCE, EXAMPLE_SOURCE_ENDPOINT, exampleSourceEndpointTemplate, exampleSourceTemplate, exampleSourceTestTemplate } from './example-source.js';
import { endpointTemplate, testTemplate } from './new.js';

/** The CI recipe as the package ships it (docs/ci/github-actions.yml, explained in docs/reviewing-changes.md). */
const RECIPE = new URL('../../docs/ci/github-actions.yml', import.meta.url);
const ENDPOINTS = 'endpoints';
/** Where `check`, `import` and `serve` look for source files by default: beside endpoints/. */
const SOURCES = 'sources';
const EXAMPLE = 'edge.recent';
const WORKFLOW = join('.github', 'workflows', 'cannery.yml');

export const initCommand: Command = {
  options: {},
  async run(_flags, positionals) {
    if (positionals.length > 0) throw new UsageError('in the folder that is to hold endpoints/');
    const files: [string, string][] = [];
    if (hasEndpoints(ENDPOINTS)) console.log(`kept ${ENDPOINTS}/: it holds endpoints already, so no example is written`);
    else {
      files.push([join(ENDPOINTS, `${EXAMPLE}.yaml`), endpointTemplate(EXAMPLE, randomUUID(), ENDPOINTS)]);
      files.push([join(ENDPOINTS, TESTS_FOLDER, `${EXAMPLE}.yaml`), testTemplate(EXAMPLE, ENDPOINTS)]);
      files.push([join(SOURCES, `${EXAMPLE_SOURCE}.yaml`), exampleSourceTemplate(SOURCES, ENDPOINTS)]);
      files.push([join(ENDPOINTS, `${EXAMPLE_SOURCE_ENDPOINT}.yaml`), exampleSourceEndpointTemplate(randomUUID(), ENDPOINTS)]);
      files.push([join(ENDPOINTS, TESTS_FOLDER, `${EXAMPLE_SOURCE_ENDPOINT}.yaml`), exampleSourceTestTemplate(ENDPOINTS)]);
    }
    files.push([WORKFLOW, await readFile(RECIPE, 'utf8')]);
    for (const [file, text] of files) {
      if (existsSync(file)) {
        console.log(`kept ${file}: it exists`);
        continue;
      }
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, text, { flag: 'wx' });
      console.log(`wrote ${file}`);
    }
    console.error(
      [
        'next:',
        '  npx cannery check              # every endpoint file, compiled for DuckDB and BigQuery',
        '  npx cannery test               # the endpoint tests, each on a fresh in-memory DuckDB',
        '  npx cannery serve --demo       # serve the endpoints on demo data (./data/cannery.duckdb: keep it out of git)',
        `  npx cannery new NAME           # another endpoint and its tests`,
        `your own tables (sources/${EXAMPLE_SOURCE}.yaml is one), declared from a sample CSV, NDJSON or Parquet file, then loaded:`,
        '  npx cannery sources infer FILE --name NAME > sources/NAME.yaml',
        '  npx cannery import --source NAME FILE',
        ...(listsCannery() ? [] : ['the workflow runs `npm ci` and `npx cannery`: add cannery to package.json (`npm install --save-dev cannery`)']),
      ].join('\n'),
    );
    return 0;
  },
};

function hasEndpoints(dir: string): boolean {
  try {
    return readdirSync(dir, { withFileTypes: true }).some((entry) => entry.isFile() && isYamlFileName(entry.name));
  } catch {
    return false;
  }
}

/** Whether the package.json here names cannery among its dependencies, as the workflow's `npm ci` needs. */
function listsCannery(): boolean {
  try {
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as Record<string, Record<string, string> | undefined>;
    return ['dependencies', 'devDependencies'].some((field) => manifest[field]?.cannery !== undefined);
  } catch {
    return false;
  }
}
