import { describe, expect, it } from 'vitest';
import type { RecordShape } from '../../../src/config/sources.js';
import { cteColumns, type SourceShapes } from '../../../src/sql/analyse/cte-columns.js';
import { parseQuery } from '../../../src/sql/parse/to-tree.js';

const request: RecordShape = { method: 'string', path: 'string' };
const edgeRow: RecordShape = { id: 'string', timestamp: 'timestamp', metadata: { request, response: { status_code: 'integer' } } };
const SOURCES: SourceShapes = new Map([['edge', edgeRow]]);

const columnsOf = (sql: string) => cteColumns(parseQuery(sql), SOURCES);

describe('cteColumns', () => {
  it('passes source columns through with their shapes, under their alias when there is one', () => {
    const [cte] = columnsOf('with a as (select t.id, t.timestamp as ts, t.metadata, 1 + 1 from `edge` as t) select 1');
    expect(cte).toEqual({
      name: 'a',
      columns: [
        { name: 'id', shape: 'string' },
        { name: 'ts', shape: 'timestamp' },
        { name: 'metadata', shape: edgeRow.metadata },
        { name: 'f0_' },
      ],
    });
  });

  it('follows UNNEST aliases down to nested fields, qualified or not', () => {
    const [cte] = columnsOf(
      'with a as (select r.path, method, m.response from `edge` as t cross join unnest(t.metadata) as m left join unnest(m.request) as r on true) select 1',
    );
    expect(cte!.columns).toEqual([
      { name: 'path', shape: 'string' },
      { name: 'method', shape: 'string' },
      { name: 'response', shape: { status_code: 'integer' } },
    ]);
  });

  it('reads earlier CTEs, subqueries and stars, with EXCEPT and REPLACE', () => {
    const ctes = columnsOf(
      'with a as (select * except (metadata) from `edge`), b as (select a.*, z.k, count(*) as n from a, (select a.id as k from a) as z group by 1, 2, 3) select 1',
    );
    expect(ctes[0]!.columns).toEqual([
      { name: 'id', shape: 'string' },
      { name: 'timestamp', shape: 'timestamp' },
    ]);
    expect(ctes[1]!.columns).toEqual([
      { name: 'id', shape: 'string' },
      { name: 'timestamp', shape: 'timestamp' },
      { name: 'k', shape: 'string' },
      { name: 'n' },
    ]);
    const [replaced] = columnsOf("with a as (select * replace (lower(id) as id) from `edge`) select 1");
    expect(replaced!.columns.slice(0, 2)).toEqual([{ name: 'id' }, { name: 'timestamp', shape: 'timestamp' }]);
  });

  it('names a column by its last field, and lets a CTE\'s own CTEs be read inside it only', () => {
    const ctes = columnsOf('with a as (with b as (select t.metadata from `edge` as t) select metadata.request from b) select 1');
    expect(ctes).toEqual([{ name: 'a', columns: [{ name: 'request', shape: request }] }]);
  });

  it('takes a set operation\'s columns from its first member, and gives no shape to what it cannot follow', () => {
    const [cte] = columnsOf('with a as (select id, nowhere.x, mystery from `edge` union all select id, 1, 2 from `edge`) select 1');
    expect(cte!.columns).toEqual([{ name: 'id', shape: 'string' }, { name: 'x' }, { name: 'mystery' }]);
  });
});
