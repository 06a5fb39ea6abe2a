/** Query clauses BigQuery has that the stock grammar refused or misplaced (docs/sql-parser.md). */
import { describe, expect, it } from 'vitest';
import type { AstNode } from '../../../src/sql/parse/parse.js';
import { only, refused, statement } from './helpers.js';

const column = (name: string) => ({ type: 'column_ref', table: null, column: { expr: { type: 'default', value: name }, offset: [] }, collate: null });

describe('QUALIFY', () => {
  it('filters after window functions, in the `qualify` field', () => {
    const select = statement('select a from t qualify row_number() over (partition by b order by c) = 1');
    expect(select.from).toEqual([expect.objectContaining({ table: 't', as: null })]);
    expect(select.qualify).toMatchObject({ type: 'binary_expr', operator: '=', left: { type: 'function', over: { type: 'window' } }, right: { type: 'number', value: 1 } });
  });

  it('comes after WHERE, GROUP BY and HAVING and before WINDOW, ORDER BY and LIMIT', () => {
    const select = statement(
      'select a, count(*) as n from t where a > 0 group by a having count(*) > 1 qualify rank() over w = 1 window w as (order by a) order by a limit 3',
    );
    expect(select.where).toMatchObject({ operator: '>' });
    expect(select.having).toMatchObject({ operator: '>' });
    expect(select.qualify).toMatchObject({ operator: '=', left: { over: { as_window_specification: 'w' } } });
    expect(select.window).toMatchObject({ type: 'window', expr: [{ name: 'w' }] });
    expect(select.orderby).toEqual([{ expr: column('a'), type: null }]);
    expect(select.limit).toMatchObject({ value: [{ type: 'number', value: 3 }] });
  });

  it('is reserved: no table alias', () => {
    refused('select a from t qualify');
  });

  it('refuses WINDOW after LIMIT, where BigQuery does', () => {
    refused('select a from t limit 3 window w as (order by a)');
  });
});

describe('NULLS FIRST | LAST', () => {
  it('in a query ORDER BY, as `nulls` beside `type`', () => {
    expect(statement('select a from t order by a desc nulls last, b nulls first, c').orderby).toEqual([
      { expr: column('a'), type: 'DESC', nulls: 'NULLS LAST' },
      { expr: column('b'), type: null, nulls: 'NULLS FIRST' },
      { expr: column('c'), type: null },
    ]);
  });

  it('in a window and in an aggregate', () => {
    const [win, agg] = (statement('select sum(x) over (order by y asc nulls first), array_agg(x order by y desc nulls last) from t').columns as AstNode[]).map((c) => c.expr as AstNode);
    expect(win).toMatchObject({ over: { as_window_specification: { window_specification: { orderby: [{ type: 'ASC', nulls: 'NULLS FIRST' }] } } } });
    expect(agg).toMatchObject({ type: 'aggr_func', args: { orderby: [{ type: 'DESC', nulls: 'NULLS LAST' }] } });
  });
});

describe('backticks', () => {
  it('name a CTE and its reference', () => {
    const select = statement('with `x` as (select 1 as a), y as (select 2 as b) select * from `x`, y');
    expect((select.with as AstNode[]).map((cte) => cte.name)).toEqual([
      { type: 'backticks_quote_string', value: 'x' },
      { type: 'default', value: 'y' },
    ]);
    expect(select.from).toEqual([expect.objectContaining({ table: 'x' }), expect.objectContaining({ table: 'y' })]);
  });

  it('name columns, fields and aliases anywhere', () => {
    const select = statement('select `my col` `alias`, t.`from`, `x`.y as `z` from t as `t` where `my col` > 1 group by `my col` order by `z`');
    const items = select.columns as AstNode[];
    expect(items[0]).toMatchObject({ expr: { column: { expr: { type: 'backticks_quote_string', value: 'my col' } } }, as: 'alias' });
    expect(items[1]).toMatchObject({ expr: { table: 't', column: 'from' } });
    expect(items[2]).toMatchObject({ expr: { table: 'x', column: 'y' }, as: { type: 'backticks_quote_string', value: 'z' } });
    expect(select.from).toEqual([expect.objectContaining({ table: 't', as: { type: 'backticks_quote_string', value: 't' } })]);
  });
});

describe('parenthesised joins', () => {
  it('join a parenthesised join: one `parenthesized_join` item holding its FROM list', () => {
    const select = statement('select * from t left join (a cross join unnest(a.m) as m) on true');
    const from = select.from as AstNode[];
    expect(from).toHaveLength(2);
    expect(from[1]).toMatchObject({
      type: 'parenthesized_join',
      join: 'LEFT JOIN',
      on: { type: 'bool', value: true },
      from: [
        { table: 'a', as: null },
        { type: 'unnest', as: 'm', join: 'CROSS JOIN', expr: { type: 'column_ref', table: 'a', column: 'm' } },
      ],
    });
  });

  it('stand first in FROM, and nest', () => {
    const select = statement('select * from (a join (b join c on b.x = c.x) on a.x = b.x)');
    expect(select.from).toMatchObject([
      { type: 'parenthesized_join', from: [{ table: 'a' }, { type: 'parenthesized_join', join: 'JOIN', from: [{ table: 'b' }, { table: 'c', join: 'JOIN' }] }] },
    ]);
  });

  it('leave a parenthesised subquery what it was', () => {
    expect(statement('select * from (select 1 as x) as s').from).toMatchObject([{ expr: { ast: { type: 'select' }, parentheses: true }, as: 's' }]);
  });

  it('as Supabase Studio writes them: several joins inside, UNNEST with a space, ON after', () => {
    const select = statement(`select al.id from auth_logs as al cross join unnest(metadata) as alm
      left join (edge_logs as e cross join unnest (metadata) as em cross join unnest (em.response) as r cross join unnest (r.headers) as h)
      on alm.request_id = h.cf_ray where alm.request_id is not null`);
    const joined = (select.from as AstNode[])[2]!;
    expect(joined).toMatchObject({ type: 'parenthesized_join', join: 'LEFT JOIN', on: { type: 'binary_expr', operator: '=' } });
    expect((joined.from as AstNode[]).map((item) => item.as)).toEqual(['e', 'em', 'r', 'h']);
  });

  it('refuses a parenthesised single table', () => {
    refused('select * from (a)');
  });
});

describe('SELECT AS STRUCT and named windows, as node-sql-parser wrote them', () => {
  it('SELECT AS STRUCT', () => {
    expect(statement('select as struct 1 as a, 2 as b').as_struct_val).toBe('as struct');
  });

  it('PERCENTILE_CONT with an empty OVER', () => {
    expect((statement('select percentile_cont(x, 0.5) over () from t').columns as AstNode[])[0]!.expr).toMatchObject({
      type: 'function',
      args: { value: [{ type: 'column_ref' }, { type: 'number', value: '0.5' }] },
      over: { type: 'window', as_window_specification: { window_specification: { partitionby: null, orderby: null, window_frame_clause: null }, parentheses: true } },
    });
  });

  it('frames and named windows', () => {
    const [framed, named] = (statement('select sum(x) over (order by y rows between 1 preceding and current row), sum(x) over w from t window w as (partition by y)').columns as AstNode[]).map((c) => c.expr as AstNode);
    expect(framed).toMatchObject({
      over: { as_window_specification: { window_specification: { window_frame_clause: { type: 'binary_expr', operator: 'BETWEEN', left: { value: 'rows' }, right: { value: [{ value: '1 PRECEDING' }, { value: 'current row' }] } } } } },
    });
    expect(named).toMatchObject({ over: { type: 'window', as_window_specification: 'w' } });
  });
});

describe('set operations by name', () => {
  it('a plain operator stays a string; a mode or a matching makes a `set_op` node', () => {
    expect(statement('select 1 as a union all select 2').set_op).toBe('union all');
    expect(statement('select 1 as a union all by name select 2 as a').set_op).toEqual({ type: 'set_op', operator: 'union all', mode: null, match: 'by name', columns: null });
    expect(statement('select 1 as a full outer union all by name on (a, `b`) select 2 as a').set_op).toEqual({ type: 'set_op', operator: 'union all', mode: 'full', match: 'by name', columns: ['a', 'b'] });
    expect(statement('select 1 as a left except distinct corresponding select 2 as a').set_op).toMatchObject({ operator: 'except distinct', mode: 'left', match: 'corresponding' });
    expect(statement('select 1 as a outer union distinct strict corresponding by (a) select 2 as a').set_op).toMatchObject({ mode: 'full', match: 'strict corresponding', columns: ['a'] });
    expect(statement('select 1 as a inner intersect distinct by name select 2 as a').set_op).toMatchObject({ mode: 'inner', operator: 'intersect distinct' });
  });

  it('INTERSECT ALL and EXCEPT ALL are operators of their own (patch 27), with or without a matching', () => {
    expect(statement('select 1 as a intersect all select 2').set_op).toBe('intersect all');
    expect(statement('select 1 as a except all corresponding select 2 as a').set_op).toMatchObject({ operator: 'except all', match: 'corresponding' });
  });

  it('refuses what BigQuery refuses: BY NAME ON without a list, CORRESPONDING BY without parentheses', () => {
    refused('select 1 as a union all by name on select 2 as a');
    refused('select 1 as a union all corresponding by a select 2 as a');
  });
});

describe('a set operation in parentheses', () => {
  it('is a `set_query` member of another, first or last', () => {
    const first = statement('(select 1 as a union all select 2) except distinct select 3');
    expect(first).toMatchObject({ type: 'set_query', parentheses_symbol: true, set_op: 'except distinct', ast: { type: 'select', set_op: 'union all' } });
    const last = statement('select 1 as a union all (select 2 as a full union all by name select 3 as b)');
    expect(last._next).toMatchObject({ type: 'set_query', ast: { set_op: { mode: 'full', match: 'by name' } } });
  });

  it('leaves a whole query in parentheses what it was', () => {
    expect(statement('(select 1 as a union all select 2)')).toMatchObject({ type: 'select', set_op: 'union all' });
  });
});

/** GROUP BY's items as the grammar gives them. */
const groupBy = (sql: string) => (statement(sql).groupby as AstNode).columns;

describe('ROLLUP, CUBE and GROUPING SETS', () => {
  it('are `grouping_spec` items of GROUP BY; a parenthesised list is an `expr_list`, `()` the empty one', () => {
    expect(groupBy('select a from t group by rollup(a, (b, c))')).toEqual([
      { type: 'grouping_spec', kind: 'rollup', items: [column('a'), expect.objectContaining({ type: 'expr_list', value: [column('b'), column('c')] })] },
    ]);
    expect(groupBy('select a from t group by cube(a)')).toEqual([{ type: 'grouping_spec', kind: 'cube', items: [column('a')] }]);
    const sets = groupBy('select a from t group by grouping sets (a, (), rollup(b))');
    expect(sets).toMatchObject([{ type: 'grouping_spec', kind: 'grouping sets', items: [column('a'), { type: 'expr_list', value: [] }, { type: 'grouping_spec', kind: 'rollup' }] }]);
  });

  it('leave a plain GROUP BY and a column named rollup in backticks what they were', () => {
    expect(groupBy('select a from t group by a, 2')).toEqual([column('a'), { type: 'number', value: 2 }]);
    expect(groupBy('select a from t group by `rollup`')).toMatchObject([{ type: 'column_ref', column: { expr: { type: 'backticks_quote_string', value: 'rollup' } } }]);
  });

  it('refuse `()` inside ROLLUP', () => {
    refused('select a from t group by rollup((), a)');
  });
});

describe('GROUP BY ()', () => {
  it('is the empty `expr_list` as a GROUP BY item', () => {
    expect(groupBy('select count(*) from t group by ()')).toEqual([{ type: 'expr_list', value: [], parentheses: true }]);
  });
});

describe('PIVOT', () => {
  it('is a `pivot_operator` on the FROM item, each aggregate and value with its alias', () => {
    const from = statement("select * from t pivot(sum(v) as s, countif(v > 1) for k in (1, 'a' as b)) as p").from as AstNode[];
    expect(from[0]!.operator).toMatchObject({
      type: 'pivot_operator',
      aggregates: [{ expr: { type: 'aggr_func', name: 'SUM' }, as: 's' }, { expr: { type: 'function' }, as: null }],
      column: column('k'),
      values: [{ expr: { type: 'number', value: 1 }, as: null }, { expr: { value: 'a' }, as: 'b' }],
      as: 'p',
    });
  });
});

describe('UNPIVOT', () => {
  it('is an `unpivot_operator` on the FROM item: values columns, and each IN item a set of columns with its label', () => {
    const from = statement("select * from t unpivot include nulls ((a, b) for n in ((x1, y1) as 'one', (x2, y2) 2, (x3, y3))) as u").from as AstNode[];
    expect(from[0]!.operator).toMatchObject({
      type: 'unpivot_operator',
      nulls: 'include',
      value_columns: ['a', 'b'],
      name_column: 'n',
      columns: [
        { columns: [column('x1'), column('y1')], as: { value: 'one' } },
        { columns: [column('x2'), column('y2')], as: { type: 'number', value: 2 } },
        { columns: [column('x3'), column('y3')], as: null },
      ],
      as: 'u',
    });
    const one = statement('select * from t unpivot (v for n in (x, y))').from as AstNode[];
    expect(one[0]!.operator).toMatchObject({ value_columns: ['v'], columns: [{ columns: [column('x')] }, { columns: [column('y')] }] });
  });

  it('refuses a signed label and an unclosed set, as GoogleSQL does', () => {
    refused('select * from t unpivot (v for n in (x as -1))');
    expect(refused('select * from t unpivot ((a, b for n in ((x, y)))').message).toBe('SQL syntax error at line 1, column 32: found "for", expected "," or ")"');
  });
});

describe('HAVING MAX | MIN in an aggregate call', () => {
  it('is `having` in the args of an `aggr_func_clauses`, after IGNORE NULLS and before ORDER BY', () => {
    expect(only('select array_agg(x ignore nulls having min k order by x limit 2)')).toMatchObject({
      type: 'aggr_func_clauses',
      args: { consider_nulls: 'IGNORE NULLS', having: { prefix: 'MIN', expr: column('k') }, orderby: [{ expr: column('x') }] },
    });
    expect(only('select sum(x having max k)')).toMatchObject({ type: 'aggr_func_clauses', args: { expr: column('x'), having: { prefix: 'MAX' } } });
    expect(only('select count(* having max k)')).toMatchObject({ type: 'aggr_func', args: { expr: { type: 'star' }, having: { prefix: 'MAX' } } });
  });

  it('refuses HAVING without MAX or MIN', () => {
    refused('select sum(x having k)');
  });
});

describe('A trailing comma before FROM', () => {
  it('ends the select list before a FROM subquery, never a call of a function FROM', () => {
    const select = statement('select a, from (select 1 as a)');
    expect(select.columns).toEqual([expect.objectContaining({ expr: column('a') })]);
    expect(select.from).toEqual([expect.objectContaining({ expr: expect.objectContaining({ ast: expect.objectContaining({ type: 'select' }) }) })]);
    expect(statement('select a, b, from t').columns).toHaveLength(2);
  });

  it('leaves a function named from in backticks a call', () => {
    expect(only('select `from`(1)')).toMatchObject({ type: 'function' });
  });
});
