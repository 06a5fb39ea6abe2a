/**
 * Start-up time: from spawning the built `cannery serve` to its first 200 on /health, with the
 * two shipped endpoint files and with 500 generated ones, each with its own SQL (below): cold
 * (an empty compile cache) and warm (the cache filled by the run before). Also `cannery check` of
 * the 500, cold and warm, which CI runs on every push. Wall time and the process's CPU time: on a
 * busy machine the CPU time is the steadier figure.
 *
 *   npm run bench:startup [-- --runs 5 --baseline DIST/cli.js]
 *
 * `--baseline` measures another build's CLI (say the previous commit's) in the same run, turn
 * about with this one, on the same files and database.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { spawn } from 'node:child_process';
import { CLI, cpuSeconds, describeMachine, isMain, markdownTable, median, ms, seed, serve, SHIPPED_ENDPOINTS } from './support.js';

export interface StartupCost {
  label: string;
  files: number;
  runs: number;
  medianMs: number;
  maxMs: number;
  /** The process's CPU time (user + system) at its first 200, or at its exit for check. */
  medianCpuMs: number;
}

// ---------------------------------------------------------------------------------------------
// 500 endpoint files, each with its own query: four shapes (the shipped ones' and two more) over
// the nine sources, with different columns, nested fields, predicates, buckets and literals.

interface Field {
  /** Record names from metadata down, then the field: ['request', 'cf', 'country']. */
  path: string[];
  type: 'string' | 'integer';
}

interface Source {
  name: string;
  /** How the project is found: the top-level column, or a metadata field. */
  project: 'column' | 'project_ref' | 'project';
  fields: Field[];
}

const f = (path: string, type: Field['type'] = 'string'): Field => ({ path: path.split('.'), type });

const SOURCES: Source[] = [
  {
    name: 'cloudflare.logs.prod',
    project: 'column',
    fields: [
      f('request.path'), f('request.method'), f('request.host'), f('request.search'), f('request.url'), f('request.headers.user_agent'),
      f('request.headers.x_real_ip'), f('request.headers.referer'), f('request.cf.country'), f('request.cf.city'),
      f('response.status_code', 'integer'), f('response.origin_time', 'integer'), f('response.headers.cf_cache_status'), f('response.headers.content_type'),
    ],
  },
  {
    name: 'postgres.logs',
    project: 'column',
    fields: [f('host'), f('parsed.error_severity'), f('parsed.user_name'), f('parsed.database_name'), f('parsed.query'), f('parsed.sql_state_code')],
  },
  {
    name: 'deno-relay-logs',
    project: 'project_ref',
    fields: [f('function_id'), f('execution_id'), f('deployment_id'), f('execution_time_ms', 'integer'), f('request.method'), f('request.url'), f('request.pathname'), f('response.status_code', 'integer')],
  },
  { name: 'deno-subhosting-events', project: 'project_ref', fields: [f('function_id'), f('execution_id'), f('level'), f('event_type')] },
  { name: 'gotrue.logs.prod', project: 'column', fields: [f('level'), f('status', 'integer'), f('path'), f('method'), f('msg'), f('remote_addr')] },
  { name: 'realtime.logs.prod', project: 'project', fields: [f('level'), f('external_id')] },
  { name: 'storage.logs.prod.2', project: 'project', fields: [f('level'), f('reqId'), f('req.method'), f('res.statusCode', 'integer')] },
  { name: 'postgREST.logs.prod', project: 'column', fields: [f('host')] },
  { name: 'pgbouncer.logs.prod', project: 'column', fields: [f('host')] },
];

const WORDS = ['rest', 'storage', 'auth', 'realtime', 'graphql', 'functions', 'admin', 'health', 'token', 'signup', 'objects', 'buckets', 'rpc', 'channel', 'upload', 'verify'];
const UNITS = ['minute', 'hour', 'day'] as const;

const word = (i: number) => WORDS[i % WORDS.length]!;

/** `cross join unnest(...)` from t down to `field`'s record; the field's SQL and the joins. */
function reach(field: Field, prefix: string): { sql: string; joins: string[] } {
  const joins = [`cross join unnest(t.metadata) as ${prefix}0`];
  field.path.slice(0, -1).forEach((record, depth) => joins.push(`cross join unnest(${prefix}${depth}.${record}) as ${prefix}${depth + 1}`));
  return { sql: `${prefix}${field.path.length - 1}.${field.path.at(-1)}`, joins };
}

function projectFilter(source: Source): { joins: string[]; where: string } {
  if (source.project === 'column') return { joins: [], where: 't.project = @project' };
  return { joins: ['cross join unnest(t.metadata) as p'], where: `p.${source.project} = @project` };
}

/** A predicate on `field` that depends on i. */
function predicate(field: Field, sql: string, i: number): string {
  if (field.type === 'integer') return [`${sql} >= ${100 + (i % 400)}`, `${sql} between ${i % 50} and ${500 + i}`, `${sql} <> ${i % 600}`][i % 3]!;
  return [`${sql} like '%${word(i)}%'`, `${sql} = '${word(i)}-${i}'`, `regexp_contains(${sql}, r'^${word(i)}[0-9]*')`, `${sql} is not null and length(${sql}) > ${i % 20}`][i % 4]!;
}

/** Several sources, one CTE each (logs.all's shape), with per-CTE predicates; the last selection reads one. */
function logsQuery(i: number): { sql: string; params: string[] } {
  const count = 2 + (i % 8);
  const ctes = Array.from({ length: count }, (_, k) => {
    const source = SOURCES[(i + k) % SOURCES.length]!;
    const project = projectFilter(source);
    const field = source.fields[(i + 3 * k) % source.fields.length]!;
    const reached = reach(field, `m${k}_`);
    const bounds = k % 2 === 0 ? ['(@start is null or t.timestamp > cast(@start as timestamp))'] : [`t.timestamp > timestamp_sub(current_timestamp(), interval ${1 + ((i + k) % 48)} hour)`];
    return [
      `  s${k}_${word(i + k)} as (`,
      `    select t.id, t.timestamp, t.event_message, ${reached.sql} as detail`,
      `    from \`${source.name}\` as t`,
      ...[...project.joins, ...reached.joins].map((join) => `    ${join}`),
      `    where ${project.where}`,
      ...[...bounds, predicate(field, reached.sql, i + k)].map((condition) => `      and ${condition}`),
      '  )',
    ].join('\n');
  });
  const read = `s${i % count}_${word(i + (i % count))}`;
  return {
    sql: ['with', ctes.join(',\n'), `select id, timestamp, event_message, detail from ${read}`, 'order by timestamp desc', `limit ${20 + (i % 200)}`].join('\n'),
    params: ['project', 'start'],
  };
}

/** Bucketed counts of several path patterns (usage.api-counts' shape) over a source's string field. */
function countsQuery(i: number): { sql: string; params: string[] } {
  const source = SOURCES[i % SOURCES.length]!;
  const strings = source.fields.filter((field) => field.type === 'string');
  const field = strings[i % strings.length]!;
  const reached = reach(field, 'r');
  const project = projectFilter(source);
  const unit = UNITS[i % UNITS.length]!;
  const patterns = Array.from({ length: 2 + (i % 4) }, (_, k) => word(i + 5 * k));
  return {
    sql: [
      'with',
      '  hits as (',
      `    select t.timestamp, ${reached.sql} as value`,
      `    from \`${source.name}\` as t`,
      ...[...project.joins, ...reached.joins].map((join) => `    ${join}`),
      `    where ${project.where}`,
      `      and t.timestamp >= timestamp_sub(current_timestamp(), interval ${1 + (i % 30)} ${unit})`,
      '  ),',
      '  bucketed as (',
      `    select timestamp_trunc(timestamp, ${unit}) as bucket, value from hits`,
      '  )',
      'select',
      '  datetime(bucket, \'UTC\') as timestamp,',
      patterns.map((pattern, k) => `  coalesce(countif(value like '%${pattern}%'), 0) as n_${k}_${pattern}`).join(',\n'),
      'from bucketed',
      'group by bucket',
      `order by bucket ${i % 2 ? 'asc' : 'desc'}`,
    ].join('\n'),
    params: ['project'],
  };
}

/** The most frequent values of one field, with an aggregate of another. */
function topValuesQuery(i: number): { sql: string; params: string[] } {
  const source = SOURCES[(i * 7) % SOURCES.length]!;
  const field = source.fields[i % source.fields.length]!;
  const reached = reach(field, 'v');
  const project = projectFilter(source);
  const aggregate = ['count(*)', 'count(distinct t.id)', 'min(t.timestamp)', 'max(t.timestamp)'][i % 4]!;
  return {
    sql: [
      `select ${reached.sql} as value, ${aggregate} as measure, countif(t.event_message like '%${word(i)}%') as matching`,
      `from \`${source.name}\` as t`,
      ...[...project.joins, ...reached.joins],
      `where ${project.where}`,
      `  and t.timestamp > timestamp_sub(current_timestamp(), interval ${1 + (i % 72)} hour)`,
      'group by value',
      `having count(*) > ${i % 5}`,
      'order by measure desc',
      `limit ${10 + (i % 90)}`,
    ].join('\n'),
    params: ['project'],
  };
}

/** Recent records matching a message pattern, with two fields of the record. */
function searchQuery(i: number): { sql: string; params: string[] } {
  const source = SOURCES[(i * 5) % SOURCES.length]!;
  const first = source.fields[i % source.fields.length]!;
  const second = source.fields[(i + 1) % source.fields.length]!;
  const a = reach(first, 'a');
  const b = reach(second, 'b');
  const project = projectFilter(source);
  return {
    sql: [
      `select t.id, t.timestamp, t.event_message, ${a.sql} as first_value, ${b.sql} as second_value`,
      `from \`${source.name}\` as t`,
      ...[...project.joins, ...a.joins, ...b.joins],
      `where ${project.where}`,
      `  and regexp_contains(t.event_message, @pattern)`,
      `  and ${predicate(first, a.sql, i)}`,
      `order by t.timestamp ${i % 3 ? 'desc' : 'asc'}`,
      `limit ${5 + (i % 95)}`,
    ].join('\n'),
    params: ['project', 'pattern'],
  };
}

const SHAPES = [logsQuery, countsQuery, topValuesQuery, searchQuery];

const PARAM_SPECS: Record<string, string[]> = {
  project: ['  project:', '    type: string', '    required: true'],
  start: ['  start:', '    type: string', '    format: date-time', '    required: false'],
  pattern: ['  pattern:', '    type: string', '    format: regex', '    required: true'],
};

/** The i-th generated endpoint file's name and text. */
export function generatedEndpoint(i: number): { name: string; text: string; sql: string } {
  const { sql, params } = SHAPES[i % SHAPES.length]!(i);
  const name = `generated.${SHAPES[i % SHAPES.length]!.name.replace('Query', '').replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}.${String(i).padStart(3, '0')}`;
  const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  const text = [
    `id: ${id}`,
    `name: ${name}`,
    `description: Generated endpoint ${i} for the start-up benchmark.`,
    'language: bq_sql',
    `max_rows: ${1000 + i}`,
    i % 3 ? 'cache: false' : 'cache:\n  ttl_seconds: 600',
    `sandbox: ${i % 2 === 0}`,
    'redact_pii: false',
    'params:',
    ...params.flatMap((param) => PARAM_SPECS[param]!),
    'query: |',
    ...sql.split('\n').map((line) => `  ${line}`),
    '',
  ].join('\n');
  return { name, text, sql };
}

/** Writes `count` generated endpoint files into `dir`; refuses if two share their SQL. */
export async function generateEndpoints(dir: string, count: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  const seen = new Map<string, string>();
  for (let i = 0; i < count; i += 1) {
    const { name, text, sql } = generatedEndpoint(i);
    const other = seen.get(sql);
    if (other) throw new Error(`generated endpoints ${other} and ${name} have the same SQL`);
    seen.set(sql, name);
    await writeFile(join(dir, `${name}.yaml`), text);
  }
}

// ---------------------------------------------------------------------------------------------

async function shippedFiles(): Promise<number> {
  return (await readdir(SHIPPED_ENDPOINTS)).filter((name) => name.endsWith('.yaml')).length;
}

/** Spawn to the first 200 on /health: wall and CPU milliseconds; checks every endpoint loaded. */
async function startOnce(cli: string, db: string, endpoints: string, files: number, cache: string): Promise<{ wall: number; cpu: number }> {
  const served = await serve({ cli, db, endpoints, env: { CANNERY_COMPILE_CACHE: cache, CANNERY_CONSOLE: 'false' } });
  try {
    const cpu = cpuSeconds(served.child.pid!) * 1000;
    const body = (await (await fetch(`${served.url}/health`)).json()) as { endpoints: string[]; problems: unknown[] };
    if (body.endpoints.length !== files || body.problems.length) {
      throw new Error(`expected ${files} endpoints without problems, got ${body.endpoints.length} and ${JSON.stringify(body.problems).slice(0, 500)}`);
    }
    return { wall: served.startupMs, cpu };
  } finally {
    await served.stop();
  }
}

/** `cannery check` to its exit: wall and CPU milliseconds (the CPU of a child that exited, from getrusage-like accounting). */
function checkOnce(cli: string, endpoints: string, cache: string): Promise<{ wall: number; cpu: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cli, 'check', '--endpoints', endpoints], {
      env: { PATH: process.env.PATH ?? '', CANNERY_COMPILE_CACHE: cache },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let errors = '';
    let cpu = NaN;
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
    // Read just before it exits: once it has, /proc no longer has it.
    const sampler = setInterval(() => {
      const now = cpuSeconds(child.pid!);
      if (!Number.isNaN(now)) cpu = now * 1000;
    }, 2);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(sampler);
      if (code !== 0) reject(new Error(`cannery check exited ${code}:\n${errors}`));
      else resolve({ wall: performance.now() - started, cpu });
    });
  });
}

function summary(label: string, files: number, samples: { wall: number; cpu: number }[]): StartupCost {
  const walls = samples.map((sample) => sample.wall);
  return { label, files, runs: samples.length, medianMs: median(walls), maxMs: Math.max(...walls), medianCpuMs: median(samples.map((sample) => sample.cpu)) };
}

type Sample = { wall: number; cpu: number };

/** Each build's start-up costs; with more than one build, their runs take turns. */
export async function measureStartup(db: string, workDir: string, runs: number, clis: readonly string[] = [CLI]): Promise<StartupCost[][]> {
  const generated = join(workDir, 'endpoints-500');
  await generateEndpoints(generated, 500);
  const shipped = await shippedFiles();
  const samples = clis.map(() => ({ shipped: [] as Sample[], cold: [] as Sample[], warm: [] as Sample[], checkCold: [] as Sample[], checkWarm: [] as Sample[] }));
  // Each run, each build: shipped (warm), 500 cold, 500 warm (on what the cold run wrote), check cold and warm.
  for (let run = 0; run < runs; run += 1) {
    for (const [index, cli] of clis.entries()) {
      const rows = samples[index]!;
      const cacheOf = (name: string) => join(workDir, `compile-cache-${index}-${name}`);
      rows.shipped.push(await startOnce(cli, db, SHIPPED_ENDPOINTS, shipped, cacheOf('shipped')));
      await rm(cacheOf('serve'), { recursive: true, force: true });
      rows.cold.push(await startOnce(cli, db, generated, 500, cacheOf('serve')));
      rows.warm.push(await startOnce(cli, db, generated, 500, cacheOf('serve')));
      await rm(cacheOf('check'), { recursive: true, force: true });
      rows.checkCold.push(await checkOnce(cli, generated, cacheOf('check')));
      rows.checkWarm.push(await checkOnce(cli, generated, cacheOf('check')));
    }
  }
  return samples.map((rows) => [
    summary('serve, shipped files, warm', shipped, rows.shipped),
    summary('serve, cold (empty compile cache)', 500, rows.cold),
    summary('serve, warm', 500, rows.warm),
    summary('check (DuckDB and BigQuery), cold', 500, rows.checkCold),
    summary('check, warm', 500, rows.checkWarm),
  ]);
}

export function startupTable(costs: readonly StartupCost[]): string {
  return markdownTable(
    ['start', 'endpoint files', 'median', 'slowest', 'CPU (median)'],
    costs.map((cost) => [cost.label, String(cost.files), ms(cost.medianMs), ms(cost.maxMs), ms(cost.medianCpuMs)]),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, baseline: { type: 'string' } } });
  const machine = describeMachine();
  const dir = await mkdtemp(join(tmpdir(), 'cannery-bench-startup-'));
  try {
    const db = join(dir, 'bench.duckdb');
    seed(db, 10_000);
    const clis = values.baseline ? [values.baseline, CLI] : [CLI];
    const costs = await measureStartup(db, dir, Number(values.runs), clis);
    console.log(`Start-up, ${values.runs} runs, ${machine.cores} cores, load ${machine.load} -> ${describeMachine().load}\n`);
    for (const [index, cli] of clis.entries()) console.log(`${clis.length > 1 ? `${cli === CLI ? 'this build' : `baseline ${cli}`}:\n\n` : ''}${startupTable(costs[index]!)}\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await main();
