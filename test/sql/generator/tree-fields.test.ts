/**
 * No silent difference, by construction, from the tree to the SQL: every field of every node of
 * the query tree (src/sql/parse/tree.ts) is written by the generator for each backend, or makes
 * it refuse. For sample queries that set every field, each field in turn is taken away: the SQL
 * each backend gets must change (or the generator refuse), so no field can be read and then
 * dropped on the way out. The samples must set every field tree.ts declares.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sourceNames } from '../../../src/config/sources.js';
import { bigQueryDialect } from '../../../src/sql/dialects/bigquery/dialect.js';
import { sourceTables } from '../../../src/sql/dialects/bigquery/tables.js';
import { duckDbDialect } from '../../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../../src/sql/generator/generate.js';
import type { Query } from '../../../src/sql/parse/tree.js';
import { parseQuery } from '../../../src/sql/parse/to-tree.js';

const TREE = readFileSync(fileURLToPath(new URL('../../../src/sql/parse/tree.ts', import.meta.url)), 'utf8');

const SAMPLES = [
  `select make_interval(1, day => 2) as i`,
  `with a as (select 1 as x), b as (select 2 as y) select distinct a.x, b.y as z, * except (x), a.* replace (3 as x) from a cross join b
     left join unnest([1, 2]) as u with offset as o on u > 0 where a.x > 0 group by 1, 2 having count(*) > 0 qualify row_number() over w = 1
     window w as (partition by a.x order by b.y desc nulls last) order by 1 desc nulls first limit 5 offset 1`,
  `select x from (select 1 as x) as s join (select 1 as x) as t using (x) union all (select 2 union distinct (select 3)) order by x limit 2`,
  `select count(distinct x), string_agg(cast(x as string), ',' order by x limit 2), array_agg(x ignore nulls), sum(x) over (order by x rows between 1 preceding and current row)
     from unnest([1]) as x`,
  `select -x, not true, ~1, 1 + 2, x between 1 and 2, x not between 1 and 2, x in (1, 2), x not in (3), x not in (select 1), s.x.b, x in unnest([1]), x not in unnest([1]),
     exists (select 1), not exists (select 1), (select 1), case x when 1 then 'a' else 'b' end, case when x = 1 then 'a' end,
     safe_cast(x as int64), cast(x as array<struct<a int64>>), interval 1 day, extract(week(monday) from d at time zone 'UTC'),
     timestamp_trunc(t, week(monday)), [1, 2][safe_offset(x)], (struct(1 as a)).a, array<int64>[1], array(select 1), struct<a int64>(1), (1, 2),
     @p, 'a', b'a', 1.5, null, true, date '2024-01-01', timestamp_diff(t, t, hour), cast(t as string format 'HH24 TZH' at time zone 'Asia/Tokyo')
     from unnest([1]) as x, unnest([struct(struct(1 as b) as x)]) as s, unnest([date '2024-01-01']) as d, unnest([timestamp '2024-01-01 00:00:00+00']) as t`,
  'select a.x from (`postgres.logs` as l cross join unnest(l.metadata) as m) left join (select 1 as x) as a on true',
  'select t.id from `postgres.logs` as t, (select 1 as id) as u',
  'select 1 as a, 2 as b full outer union all by name on (a) select 3 as a',
  'select a, grouping(a) as g, count(*) as n from (select 1 as a) as t group by rollup (a)',
  'select (select as struct 1 as p, 2 as r).p as q, sum(x having max x) as h from unnest([1, 2]) as x',
  'select * from (select 1 as a, 2 as b, 3 as c, 4 as d) unpivot ((x, y) for n in ((a, b), (c, d)))',
  "select x not like any ('a%', 'b%') as p, x like all unnest(['a%']) as q from unnest(['abc']) as x",
];

/**
 * Fields whose removal need not change the text: what they say is written by other means.
 */
const SAME_TEXT: Readonly<Record<string, string>> = {
  'struct.tuple': 'a tuple is a STRUCT: DuckDB gets the STRUCT either way (BigQuery keeps the spelling)',
  'derived.unpivotValues': "a check, not text: it lets analyse/unpivot-types.ts find the columns whose types must agree, or refuse (golden cases in unpivot39.yaml and small39.yaml)",
};

/** A comma or CROSS JOIN is what no join says (a cross product, lateral for an UNNEST). */
function isCrossJoin(query: Query, path: Path): boolean {
  let at: unknown = query;
  for (const key of path) at = (at as Record<string | number, unknown>)[key];
  const type = (at as { type?: unknown } | undefined)?.type;
  return type === ',' || type === 'CROSS JOIN';
}

/** Fields no sample can set and still compile on both backends, with why they still matter. */
const NOT_SAMPLED: Readonly<Record<string, string>> = {
  'table.qualified': 'a qualified name is never a CTE: `d.x` is a table even beside a CTE x, and no qualified name is a source here',
};

type Path = (string | number)[];

interface Field {
  kind: string;
  field: string;
  path: Path;
}

function meaningful(value: unknown): boolean {
  return !(value === undefined || value === null || value === false || (Array.isArray(value) && value.length === 0));
}

/** Every set field of every tree node (an object with a `kind`), with the path to it. */
function fieldsOf(node: unknown, path: Path = [], found: Field[] = []): Field[] {
  if (Array.isArray(node)) node.forEach((item, index) => fieldsOf(item, [...path, index], found));
  else if (node && typeof node === 'object') {
    const kind = (node as { kind?: unknown }).kind;
    for (const [key, value] of Object.entries(node)) {
      if (typeof kind === 'string' && key !== 'kind' && key !== 'loc' && meaningful(value)) found.push({ kind, field: key, path: [...path, key] });
      fieldsOf(value, [...path, key], found);
    }
  }
  return found;
}

function without(query: Query, path: Path): Query {
  const copy = structuredClone(query) as unknown as Record<string | number, unknown>;
  let at: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  at[last] = Array.isArray(at[last]) ? [] : typeof at[last] === 'boolean' ? false : undefined;
  return copy as unknown as Query;
}

const dialects = [bigQueryDialect(sourceTables(sourceNames(), { project: 'p', dataset: 'd' })), duckDbDialect(sourceNames())];

function texts(query: Query): string[] {
  return dialects.map((dialect) => {
    try {
      return generate(query, dialect).sql;
    } catch (error) {
      return `refused: ${(error as Error).message}`;
    }
  });
}

/** The fields each node kind of tree.ts declares: `interface X ... { kind: 'k'; a: ...; b?: ... }`. */
function declaredFields(): Map<string, string[]> {
  const declared = new Map<string, string[]>();
  for (const match of TREE.matchAll(/export interface \w+(?: extends \w+)? \{([\s\S]*?)\n\}/g)) {
    const body = match[1]!;
    const kind = /^\s*kind: '([a-z_]+)';/m.exec(body)?.[1];
    if (kind === undefined) continue;
    const fields = [...body.matchAll(/^ {2}(\w+)\??:/gm)].map((field) => field[1]!).filter((field) => field !== 'kind');
    declared.set(kind, fields);
  }
  return declared;
}

/** Fields only a dialect's rewrite sets (never read from SQL), and kinds only rewrites make. */
const REWRITE_ONLY = new Set(['query.writeBack', 'param.derived', 'unnest.columnAlias', 'native.name', 'native.args', 'unknown.what', 'table.alias']);

describe('every field of the query tree reaches the SQL of every backend', () => {
  const seen = new Set<string>();
  for (const sql of SAMPLES) {
    const query = parseQuery(sql);
    const fields = fieldsOf(query);
    for (const { kind, field } of fields) seen.add(`${kind}.${field}`);
    it(`each field taken away changes the SQL: ${sql.slice(0, 70).replace(/\s+/g, ' ')}...`, () => {
      const base = texts(query);
      expect(base.filter((text) => text.startsWith('refused')), 'the sample compiles').toEqual([]);
      const unchanged = fields
        .filter(({ kind, field, path }) => SAME_TEXT[`${kind}.${field}`] === undefined && !(field === 'join' && isCrossJoin(query, path)))
        .filter(({ path }) => texts(without(query, path)).some((text, index) => text === base[index]))
        .map(({ kind, field, path }) => `${kind}.${field} at ${path.join('.')}`);
      expect(unchanged).toEqual([]);
    });
  }

  it('the samples set every field tree.ts declares', () => {
    const missing = [...declaredFields()].flatMap(([kind, fields]) => fields.map((field) => `${kind}.${field}`)).filter((name) => !seen.has(name) && !REWRITE_ONLY.has(name) && NOT_SAMPLED[name] === undefined && !name.startsWith('native.') && !name.startsWith('unknown.'));
    expect(missing).toEqual([]);
  });
});
