/**
 * `cannery new`'s files for an endpoint over a declared source (sources/*.yaml): the query reads
 * the source's first scalar columns, filtered by its first STRING column (a parameter of that
 * name) and newest first by its time column, and the tests give three rows made from the
 * declaration, so both pass `check` and `test` as written, whatever the source declares.
 */
import { join } from 'node:path';
import { ENDPOINT_TESTS_SCHEMA_URL, TESTS_FOLDER } from '../config/endpoint-tests-file.js';
import type { DeclaredField, SourceDeclaration } from '../config/source-declaration.js';
import { endpointTemplateHead } from './endpoint-template-head.js';
import { schemaReference } from './schema-reference.js';

/** How many columns the query selects: enough to show the shape, few enough to read. */
const SELECTED = 4;

/** What the template reads of the source: its columns, the filter parameter, the order. */
interface Plan {
  selected: DeclaredField[];
  /** The column filtered by a parameter of the same name, when the source has a STRING column. */
  filter?: DeclaredField;
  /** The time column, when declared: the rows come newest first. */
  time?: DeclaredField;
}

function planOf(source: SourceDeclaration): Plan {
  const scalar = source.columns.filter((column) => column.type !== 'RECORD' && column.mode !== 'REPEATED');
  const time = scalar.find((column) => column.name === source.timeColumn);
  // A parameter is named after its column: a column name that is no parameter name is not offered as one.
  const candidates = scalar.filter((column) => column.type === 'STRING' && column !== time && /^[A-Za-z_][A-Za-z0-9_]*$/.test(column.name) && column.name !== 'sql');
  // A NULLABLE column is more often an attribute rows share (a customer) than a REQUIRED one (an id).
  const filter = candidates.find((column) => column.mode === 'NULLABLE') ?? candidates[0];
  const selected = scalar.slice(0, SELECTED);
  for (const column of [filter, time]) if (column && !selected.includes(column)) selected.push(column);
  return { selected, filter, time };
}

const quote = (name: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `\`${name}\``);

/** `declared`: the project's declared source names, listed in the query's comment. */
export function declaredEndpointTemplate(name: string, id: string, dir: string, source: SourceDeclaration, declared: readonly string[]): string {
  const { selected, filter, time } = planOf(source);
  const where = filter ? `\n  where t.${quote(filter.name)} = @${filter.name}` : '';
  const order = time ? `\n  order by t.${quote(time.name)} desc` : '';
  const params = filter
    ? `params:
  # Each @name the query uses: type string, integer, number or boolean; strings may have
  # enum: [a, b] or format: regex | date-time.
  ${filter.name}:
    type: string
    required: true
    description: Only rows with this ${filter.name} are returned.`
    : `# Each @name the query uses: type string, integer, number or boolean.
params: {}`;
  const what = `${time ? 'Recent rows' : 'Rows'} of ${source.name}${filter ? ` for one ${filter.name}` : ''}${time ? ', newest first' : ''}.`;
  return `${endpointTemplateHead(name, id, dir, what)}${params}
# BigQuery Standard SQL. Sources are read by name in backticks: the project's own
# (${declared.join(', ')}) and the log sources (\`cloudflare.logs.prod\`, ...).
query: |
  select ${selected.map((column) => `t.${quote(column.name)}`).join(', ')}
  from \`${source.name}\` as t${where}${order}
  limit 100
`;
}

export function declaredTestTemplate(name: string, dir: string, source: SourceDeclaration): string {
  const plan = planOf(source);
  const { filter, time } = plan;
  const rows = [0, 1, 2].map((index) => rowOf(source, plan, index));
  // Each expected row lists the selected columns whose wire value is plainly written.
  const expected = (index: number) => flow(Object.fromEntries(plan.selected.flatMap((column) => wired(column, plan, index))));
  const newestFirst = (indexes: number[]) => (time ? indexes.sort((a, b) => b - a) : indexes);
  const tests = filter
    ? `  # ${time ? 'rows: the whole answer, in order' : 'includes: rows that must be in the answer, in any order'}; a row lists only the columns it checks.
  - name: returns the rows of one ${filter.name}${time ? ', newest first' : ''}
    request: {params: {${filter.name}: a}}
    expect:
      ${time ? 'rows' : 'includes'}:
${newestFirst([0, 1]).map((index) => `        - ${expected(index)}`).join('\n')}

  # includes: rows that must be in the answer, in any order.
  - name: leaves other ${filter.name} values out
    request: {params: {${filter.name}: b}}
    expect:
      includes:
        - ${expected(2)}

  # error: the code (and the parameter) a caller would get.
  - name: ${filter.name} is required
    expect:
      error: {code: missing_parameter, param: ${filter.name}}
`
    : `  # ${time ? 'rows: the whole answer, in order' : 'includes: rows that must be in the answer, in any order'}; a row lists only the columns it checks.
  - name: returns the rows${time ? ', newest first' : ''}
    expect:
      ${time ? 'rows' : 'includes'}:
${newestFirst([0, 1, 2]).map((index) => `        - ${expected(index)}`).join('\n')}
`;
  return `# yaml-language-server: $schema=${schemaReference(join(dir, TESTS_FOLDER), dir, ENDPOINT_TESTS_SCHEMA_URL)}
#
# Tests of ${name}: \`cannery test --filter ${name}\`. Each test runs on a fresh in-memory
# database holding \`events\` (rows of each source by its name, as \`cannery import\` reads
# NDJSON), at the execution time \`now\`.
endpoint: ${name}
now: "2024-05-01T12:00:00Z"
events:
  ${/^[A-Za-z0-9_.-]+$/.test(source.name) ? source.name : JSON.stringify(source.name)}:
${rows.map((row) => `    - ${row}`).join('\n')}
tests:
${tests}`;
}

/** Row `index` (0 to 2) of the test's events: every column, the filter's values a, a, b, the times in order. */
function rowOf(source: SourceDeclaration, plan: Plan, index: number): string {
  return flow(Object.fromEntries(source.columns.map((column) => [column.name, sample(column, plan, index)])));
}

function sample(field: DeclaredField, plan: Plan, index: number): unknown {
  const one = (): unknown => {
    if (field === plan.filter) return ['a', 'a', 'b'][index];
    switch (field.type) {
      case 'STRING':
        return `${field.name}-${index + 1}`;
      case 'INT64':
        return index + 1;
      case 'FLOAT64':
        return index + 0.5;
      case 'NUMERIC':
      case 'BIGNUMERIC':
        return `${index + 1}.5`;
      case 'BOOL':
        return index % 2 === 0;
      case 'TIMESTAMP':
        return `2024-05-01T${TIMES[index]}Z`;
      case 'DATETIME':
        return `2024-05-01T${TIMES[index]}`;
      case 'DATE':
        return `2024-04-0${index + 1}`;
      case 'TIME':
        return TIMES[index];
      case 'BYTES':
        return 'YQ==';
      case 'JSON':
        return { n: index + 1 };
      case 'RECORD':
        return Object.fromEntries((field.fields ?? []).map((inner) => [inner.name, sample(inner, plan, index)]));
    }
  };
  return field.mode === 'REPEATED' ? [one()] : one();
}

/** Before `now` (12:00), in order: the last is the newest. */
const TIMES = ['11:00:00', '11:30:00', '11:45:00'];

/** The column and its value as the answer has it, for the types whose wire value is the value written. */
function wired(field: DeclaredField, plan: Plan, index: number): [string, unknown][] {
  // A TIMESTAMP's wire value is microseconds, and a test may write it as ISO text; the others as written.
  return ['STRING', 'INT64', 'FLOAT64', 'BOOL', 'DATE', 'DATETIME', 'TIMESTAMP'].includes(field.type) ? [[field.name, sample(field, plan, index)]] : [];
}

/** A YAML flow mapping (or value) on one line; strings quoted as JSON, which YAML reads alike. */
function flow(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(flow).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const key = (name: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : JSON.stringify(name));
    return `{${Object.entries(value).map(([name, inner]) => `${key(name)}: ${flow(inner)}`).join(', ')}}`;
  }
  return JSON.stringify(value);
}
