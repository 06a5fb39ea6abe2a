/**
 * BigQuery settings (CANNERY_BQ_*), checked at start-up: every value is spliced into a table
 * path or a request, so a malformed one is refused here rather than failing every query.
 */
import { didYouMean } from './spelling.js';
import { BUILT_IN_SOURCES, sourceNames } from './sources.js';

/** A BigQuery table, as `project.dataset.table` names it. */
export interface TableRef {
  project: string;
  dataset: string;
  table: string;
}

export interface BigQuerySettings {
  /** The project that runs (and is billed for) the jobs, and the default project of the tables. */
  project: string | undefined;
  /** The dataset holding the source tables that have no override. */
  dataset: string | undefined;
  location: string | undefined;
  /** Another API root (an emulator, a test server); the client then sends no credentials. */
  apiEndpoint: string | undefined;
  /** Bytes a query may bill at most, as BigQuery's int64 string. */
  maxBytesBilled: string | undefined;
  /** Source name -> table, for sources stored under another name (CANNERY_BQ_TABLES). */
  tables: Record<string, TableRef>;
}

type Env = Record<string, string | undefined>;

// Project ids: 6-30 lowercase letters, digits and dashes, optionally after a `domain:` prefix.
const PROJECT = /^(?:[a-z0-9.-]+:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$/;
const DATASET = /^[A-Za-z0-9_]{1,1024}$/;
// Letters, marks, numbers, connectors, dashes and spaces: what BigQuery allows in a table name.
const TABLE = /^[\p{L}\p{M}\p{N}\p{Pc}\p{Pd}\p{Zs}]{1,1024}$/u;
const LOCATION = /^[A-Za-z]+(?:-[A-Za-z0-9]+)*$/;
const INT64 = /^[1-9]\d{0,17}$/;

/** Reads and checks CANNERY_BQ_*; with `required` (the bigquery backend) project and dataset must be set. */
export function readBigQuerySettings(env: Env, required: boolean): BigQuerySettings {
  const project = optional(env, 'CANNERY_BQ_PROJECT', PROJECT, 'a project id such as my-project (lowercase letters, digits and dashes)');
  const settings: BigQuerySettings = {
    project,
    dataset: optional(env, 'CANNERY_BQ_DATASET', DATASET, 'a dataset name (letters, digits and _)'),
    location: optional(env, 'CANNERY_BQ_LOCATION', LOCATION, 'a location such as US, EU or europe-west1'),
    apiEndpoint: apiEndpoint(env.CANNERY_BQ_API_ENDPOINT),
    maxBytesBilled: optional(env, 'CANNERY_BQ_MAX_BYTES_BILLED', INT64, 'a whole number of bytes, e.g. 10000000000 for 10 GB'),
    tables: tableOverrides(env.CANNERY_BQ_TABLES, project),
  };
  if (required) checkBigQueryComplete(settings);
  return settings;
}

/** Refuses settings that cannot name every source's table or the project to run jobs in. */
export function checkBigQueryComplete(
  settings: BigQuerySettings,
  /** The project's declared sources; one whose file names its table needs no dataset. */
  declared: readonly { name: string; bigqueryTable?: string }[] = [],
): asserts settings is BigQuerySettings & { project: string } {
  if (!settings.project) throw new Error('CANNERY_BQ_PROJECT must be set for BigQuery: the project that runs the queries');
  const unmapped = [
    ...sourceNames(BUILT_IN_SOURCES).filter((source) => !settings.tables[source]),
    ...declared.filter((d) => d.bigqueryTable === undefined && !settings.tables[d.name]).map((d) => d.name),
  ];
  if (!settings.dataset && unmapped.length) {
    throw new Error(`CANNERY_BQ_DATASET must be set for BigQuery: the dataset of the sources without a CANNERY_BQ_TABLES entry (${unmapped.join(', ')})`);
  }
}

function optional(env: Env, name: string, pattern: RegExp, what: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!pattern.test(raw)) throw new Error(`${name} must be ${what} (got "${raw}")`);
  return raw;
}

function apiEndpoint(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
    throw new Error(`CANNERY_BQ_API_ENDPOINT must be an http(s) URL such as http://127.0.0.1:9050 (got "${raw}")`);
  }
  return raw.replace(/\/+$/, '');
}

/**
 * CANNERY_BQ_TABLES: a JSON object from source name (a log source's or a declared one's) to
 * `project.dataset.table`, or to `dataset.table` in CANNERY_BQ_PROJECT, e.g.
 * {"cloudflare.logs.prod":"other-proj.logs.edge"}.
 */
function tableOverrides(raw: string | undefined, defaultProject: string | undefined): Record<string, TableRef> {
  if (raw === undefined || raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new Error(`CANNERY_BQ_TABLES must be a JSON object of source name to table: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error('CANNERY_BQ_TABLES must be a JSON object of source name to table, e.g. {"postgres.logs":"my-project.logs.postgres"}');
  }
  // Which names are sources is known once the project's source files are read (declaredTables).
  return Object.fromEntries(Object.entries(parsed).map(([source, value]) => [source, tableRef(source, value, defaultProject)]));
}

/**
 * Source name -> table for the declared sources whose file names one (`bigquery.table`), with
 * CANNERY_BQ_TABLES's entries winning: an environment maps one deployment's tables. An entry of
 * CANNERY_BQ_TABLES that names no source, shipped or declared, is refused: a typo there would
 * leave the table it meant to move unmapped.
 */
export function declaredTables(
  settings: BigQuerySettings,
  declarations: readonly { name: string; bigqueryTable?: string; file?: string }[],
): Record<string, TableRef> {
  const sources = [...sourceNames(BUILT_IN_SOURCES), ...declarations.map((declaration) => declaration.name)];
  for (const source of Object.keys(settings.tables)) {
    if (!sources.includes(source)) {
      throw new Error(`CANNERY_BQ_TABLES: "${source}" is not a source${didYouMean(source, sources)}; sources: ${sources.join(', ')}`);
    }
  }
  const tables: Record<string, TableRef> = {};
  for (const { name, bigqueryTable, file } of declarations) {
    if (bigqueryTable !== undefined) tables[name] = tableRef(name, bigqueryTable, settings.project, `${file ?? name}: bigquery.table`);
  }
  return { ...tables, ...settings.tables };
}

/** A table written `project.dataset.table`, or `dataset.table` in `defaultProject`, checked; `where` says where it was written. */
export function tableRef(source: string, value: unknown, defaultProject: string | undefined, where = `CANNERY_BQ_TABLES["${source}"]`): TableRef {
  const invalid = (why: string) => new Error(`${where} ${why}`);
  if (typeof value !== 'string') throw invalid('must be a string "project.dataset.table" or "dataset.table"');
  // The table part is last; the dataset has no dots; a domain-scoped project (example.com:proj) may.
  const match = /^(?:(.+)\.)?([^.]+)\.([^.]+)$/.exec(value);
  if (!match) throw invalid(`must be "project.dataset.table" or "dataset.table" (got "${value}")`);
  const [, givenProject, dataset, table] = match as unknown as [string, string | undefined, string, string];
  const project = givenProject ?? defaultProject;
  if (project === undefined) throw invalid(`names no project and CANNERY_BQ_PROJECT is not set (got "${value}")`);
  if (!PROJECT.test(project)) throw invalid(`has an invalid project id "${project}"`);
  if (!DATASET.test(dataset)) throw invalid(`has an invalid dataset name "${dataset}" (letters, digits and _)`);
  if (!TABLE.test(table)) throw invalid(`has an invalid table name "${table}" (letters, digits, _, - and spaces)`);
  return { project, dataset, table };
}
