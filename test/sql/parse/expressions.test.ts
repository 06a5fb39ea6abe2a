/** Aggregates, subscripts, intervals, casts and other expressions (docs/sql-parser.md). */
import { describe, expect, it } from 'vitest';
import { only, refused, selected } from './helpers.js';

const column = (name: string) => ({ type: 'column_ref', table: null, column: { expr: { type: 'default', value: name }, offset: [] }, collate: null });
const number = (value: number) => ({ type: 'number', value });

describe('aggregates with modifiers', () => {
  it('STRING_AGG with a delimiter, ORDER BY and LIMIT: an aggr_func_clauses, which a reader of aggr_func cannot misread', () => {
    expect(only("select string_agg(x, ',' order by y limit 3) from t")).toEqual({
      type: 'aggr_func_clauses',
      name: 'STRING_AGG',
      args: {
        distinct: null,
        expr: column('x'),
        separator: { symbol: ',', delimiter: { type: 'single_quote_string', value: ',' } },
        orderby: [{ expr: column('y'), type: null }],
        limit: { seperator: '', value: [number(3)] },
      },
      over: null,
    });
  });

  it('DISTINCT in STRING_AGG and ARRAY_AGG', () => {
    expect(selected("select string_agg(distinct x, '|'), array_agg(distinct x) from t")).toEqual([
      expect.objectContaining({ type: 'aggr_func_clauses', name: 'STRING_AGG', args: expect.objectContaining({ distinct: 'DISTINCT', separator: { symbol: ',', delimiter: { type: 'single_quote_string', value: '|' } } }) }),
      { type: 'aggr_func', name: 'ARRAY_AGG', args: { distinct: 'DISTINCT', expr: column('x'), orderby: null }, over: null },
    ]);
  });

  it('ARRAY_AGG with IGNORE NULLS, ORDER BY and LIMIT', () => {
    expect(only('select array_agg(x ignore nulls order by y desc limit 10) from t')).toEqual({
      type: 'aggr_func_clauses',
      name: 'ARRAY_AGG',
      args: { distinct: null, expr: column('x'), consider_nulls: 'IGNORE NULLS', orderby: [{ expr: column('y'), type: 'DESC' }], limit: { seperator: '', value: [number(10)] } },
      over: null,
    });
  });

  it('ARRAY_AGG(STRUCT(...) ORDER BY ... LIMIT n): the order and limit are the aggregate\'s, not the struct\'s', () => {
    const agg = only('select array_agg(struct(a, b) order by c limit 5) from t');
    expect(agg).toMatchObject({
      type: 'aggr_func_clauses',
      name: 'ARRAY_AGG',
      args: { expr: { type: 'struct', order_by: null, limit: null }, orderby: [{ expr: column('c') }], limit: { value: [number(5)] } },
    });
  });

  it('other aggregates with DISTINCT or ORDER BY are aggr_func; RESPECT NULLS with OVER', () => {
    expect(selected('select sum(distinct x), array_agg(x order by y), last_value(x respect nulls) over (order by y) from t')).toMatchObject([
      { type: 'aggr_func', name: 'SUM', args: { distinct: 'DISTINCT', expr: column('x') } },
      { type: 'aggr_func', name: 'ARRAY_AGG', args: { distinct: null, expr: column('x'), orderby: [{ expr: column('y') }] } },
      { type: 'aggr_func_clauses', name: 'LAST_VALUE', args: { consider_nulls: 'RESPECT NULLS' }, over: { type: 'window' } },
    ]);
  });

  it('calls without a modifier keep the stock shapes', () => {
    expect(selected("select string_agg(x, ','), array_agg(x), count(distinct x) from t")).toMatchObject([
      { type: 'function', args: { type: 'expr_list', value: [column('x'), { type: 'single_quote_string', value: ',' }] } },
      { type: 'aggr_func', name: 'ARRAY_AGG', args: column('x') },
      { type: 'aggr_func', name: 'COUNT', args: { distinct: 'DISTINCT', expr: column('x') } },
    ]);
  });

  it('a second argument beside a modifier, as STRING_AGG\'s delimiter is (NTH_VALUE(x, 2 IGNORE NULLS)); no third', () => {
    expect(only('select approx_quantiles(distinct x, 4) from t')).toMatchObject({ type: 'aggr_func_clauses', name: 'APPROX_QUANTILES', args: { distinct: 'DISTINCT', expr: column('x'), separator: { delimiter: number(4) } } });
    expect(only('select nth_value(x, 2 ignore nulls) over () from t')).toMatchObject({ type: 'aggr_func_clauses', name: 'NTH_VALUE', args: { consider_nulls: 'IGNORE NULLS', separator: { delimiter: number(2) } } });
    refused('select approx_quantiles(distinct x, 4, 5) from t');
  });
});

describe('named arguments', () => {
  it('follow the positional ones, as `named_argument` nodes of the list', () => {
    expect(only('select make_interval(1, day => 2) from t')).toMatchObject({
      type: 'function',
      args: { type: 'expr_list', value: [number(1), { type: 'named_argument', name: 'day', value: number(2) }] },
    });
    refused('select f(a => 1 +) from t');
  });
});

describe('subscripts and field access, chained, after any expression', () => {
  const offset = (name: string | undefined, value: number) => (name ? { name, value: number(value) } : { value: number(value) });
  const subscripted = (expr: unknown, offsets: unknown[], suffix?: string) => ({
    type: 'column_ref',
    table: null,
    column: suffix ? { expr, offset: offsets, suffix } : { expr, offset: offsets },
  });

  it('a[OFFSET(0)].b[OFFSET(0)]: each run of subscripts wraps what precedes it', () => {
    expect(only('select a[offset(0)].b[offset(0)] from t')).toEqual(subscripted(subscripted(column('a'), [offset('OFFSET', 0)], '.b'), [offset('OFFSET', 0)]));
  });

  it('x[ORDINAL(1)].y.z in WHERE, (e)[SAFE_OFFSET(2)], f(x)[SAFE_ORDINAL(1)]', () => {
    expect(selected('select x[ordinal(1)].y.z, (e)[safe_offset(2)], f(x)[safe_ordinal(1)] from t')).toMatchObject([
      subscripted(column('x'), [offset('ORDINAL', 1)], '.y.z'),
      subscripted({ ...column('e'), parentheses: true }, [offset('SAFE_OFFSET', 2)]),
      subscripted({ type: 'function', args: { value: [column('x')] } }, [offset('SAFE_ORDINAL', 1)]),
    ]);
  });

  it('any expression as the index, in any clause', () => {
    const select = only('select 1 from t where split(s, ",")[offset(array_length(split(s, ",")) - 1)] = @p');
    expect(select).toEqual(number(1));
    refused('select a[offset()] from t');
  });

  it('a bare index keeps its stock node; one after a call is wrapped', () => {
    expect(selected('select arr[0], f(x)[1] from t')).toEqual([
      { ...column('arr'), column: { expr: { type: 'default', value: 'arr' }, offset: [offset(undefined, 0)] } },
      subscripted(expect.objectContaining({ type: 'function' }), [offset(undefined, 1)]),
    ]);
  });

  it('inside CAST the subscript is part of the cast expression', () => {
    expect(only('select cast(a[offset(0)] as string) from t')).toMatchObject({ type: 'cast', expr: subscripted(column('a'), [offset('OFFSET', 0)]), target: [{ dataType: 'STRING' }] });
  });

  it('field access after a call has no subscripts', () => {
    expect(only('select f(x).a.b from t')).toMatchObject({ type: 'column_ref', column: { expr: { type: 'function' }, offset: [], suffix: '.a.b' } });
  });
});

describe('INTERVAL', () => {
  it.each(['year', 'quarter', 'month', 'week', 'day', 'hour', 'minute', 'second', 'millisecond', 'microsecond'])('%s', (unit) => {
    expect(only(`select interval 5 ${unit.toUpperCase()}`)).toEqual({ type: 'interval', expr: number(5), unit });
  });

  it("the range form: unit 'hour to second'", () => {
    expect(only("select interval '10:20:30' hour to second")).toEqual({ type: 'interval', expr: { type: 'single_quote_string', value: '10:20:30' }, unit: 'hour to second' });
  });
});

describe('CAST and SAFE_CAST type names', () => {
  it.each(['INT64', 'INT', 'SMALLINT', 'INTEGER', 'BIGINT', 'TINYINT', 'BYTEINT', 'FLOAT64', 'NUMERIC', 'DECIMAL', 'BIGNUMERIC', 'BIGDECIMAL', 'BOOL', 'BOOLEAN', 'STRING', 'BYTES', 'DATE', 'DATETIME', 'TIME', 'TIMESTAMP', 'JSON', 'INTERVAL'])(
    '%s, as written',
    (type) => {
      expect(only(`select safe_cast(x as ${type.toLowerCase()}) from t`)).toMatchObject({ type: 'cast', keyword: 'safe_cast', target: [{ dataType: type }] });
    },
  );

  it('ARRAY<T> and STRUCT<...>', () => {
    expect(selected('select cast(x as array<int64>), cast(x as struct<a int64, b string>) from t')).toMatchObject([
      { target: [{ dataType: 'ARRAY', definition: [{ field_name: null, field_type: { dataType: 'INT64' } }] }] },
      { target: [{ dataType: 'STRUCT', definition: [{ field_name: 'a', field_type: { dataType: 'INT64' } }, { field_name: 'b', field_type: { dataType: 'STRING' } }] }] },
    ]);
  });

  it('parameterised types', () => {
    expect(selected('select cast(x as numeric(10, 2)), cast(x as string(3)), cast(x as bytes(4)), cast(x as decimal(10, 2)) from t').map((cast) => cast.target)).toEqual([
      [{ dataType: 'NUMERIC', length: 10, scale: 2, parentheses: true }],
      [{ dataType: 'STRING', length: 3, parentheses: true }],
      [{ dataType: 'BYTES', length: 4, parentheses: true }],
      [{ dataType: 'DECIMAL(10, 2)' }],
    ]);
  });

  it('FORMAT and AT TIME ZONE: a cast_format node', () => {
    expect(only("select cast(ts as string format 'YYYY-MM-DD' at time zone 'UTC') from t")).toMatchObject({
      type: 'cast_format',
      target: [{ dataType: 'STRING' }],
      format: { type: 'single_quote_string', value: 'YYYY-MM-DD' },
      time_zone: { type: 'single_quote_string', value: 'UTC' },
    });
  });
});

describe('EXTRACT', () => {
  it('AT TIME ZONE: the source is an at_time_zone node', () => {
    expect(only("select extract(hour from ts at time zone 'America/New_York') from t")).toEqual({
      type: 'extract',
      args: { field: 'hour', source: { type: 'at_time_zone', expr: column('ts'), time_zone: { type: 'single_quote_string', value: 'America/New_York' } } },
    });
  });

  it.each(['microsecond', 'millisecond', 'dayofyear', 'datetime', 'week(monday)', 'dayofweek', 'isoweek', 'date'])('part %s', (part) => {
    expect(only(`select extract(${part} from ts) from t`)).toMatchObject({ type: 'extract', args: { field: part } });
  });
});

describe('LIKE ... ESCAPE is not BigQuery', () => {
  it('is refused', () => {
    refused("select x from t where x like '%a!%' escape '!'");
  });
});

describe('functions written as keywords or with a prefix', () => {
  it('CURRENT_DATE, CURRENT_TIMESTAMP and CURRENT_DATETIME without parentheses are function nodes', () => {
    expect(selected('select current_date, current_timestamp, current_datetime from t')).toEqual(
      ['CURRENT_DATE', 'CURRENT_TIMESTAMP', 'CURRENT_DATETIME'].map((value) => ({ type: 'function', name: { name: [{ type: 'origin', value }] }, over: null })),
    );
  });

  it('with parentheses they are ordinary calls', () => {
    expect(selected('select current_date(), current_datetime() from t')).toMatchObject([{ type: 'function', args: { value: [] } }, { type: 'function', args: { value: [] } }]);
  });

  it('names that are functions elsewhere but columns in BigQuery stay column references', () => {
    expect(selected('select current_role, localtime, localtimestamp, user from t')).toEqual(['current_role', 'localtime', 'localtimestamp', 'user'].map(column));
  });

  it('SAFE. and NET. prefixes', () => {
    expect(selected("select safe.parse_timestamp('%Y', x), net.host(x) from t")).toMatchObject([
      { type: 'function', name: { schema: { value: 'safe' }, name: [{ value: 'parse_timestamp' }] } },
      { type: 'function', name: { schema: { value: 'net' }, name: [{ value: 'host' }] } },
    ]);
  });
});

describe('arrays and structs', () => {
  it('array literals, typed and empty', () => {
    expect(selected('select [], [1, 2], array<int64>[], array<string>["a", x] from t')).toMatchObject([
      { type: 'array', array_path: null, brackets: true },
      { type: 'array', array_path: [{ expr: number(1) }, { expr: number(2) }] },
      { type: 'array', keyword: 'array', definition: { dataType: 'ARRAY' }, array_path: [] },
      { type: 'array', keyword: 'array', array_path: [{ expr: { type: 'string', value: 'a' } }, { expr: column('x') }] },
    ]);
  });

  it('ARRAY(subquery) and IN UNNEST', () => {
    expect(only('select array(select x from unnest(y) as x) from t')).toMatchObject({ type: 'array', keyword: 'array', expr_list: { ast: { type: 'select' } } });
    expect(only("select 1 from t where y in unnest(['a', 'b'])")).toEqual(number(1));
  });

  it('quantified LIKE: the quantifier joins the operator, the patterns a list or an UNNEST', () => {
    const [any, some, all] = selected("select x like any ('a%', 'b'), x not like some ('c'), x like all unnest(y) from t");
    expect(any).toMatchObject({ type: 'binary_expr', operator: 'LIKE ANY', right: { type: 'expr_list', value: [{ value: 'a%' }, { value: 'b' }] } });
    expect(some).toMatchObject({ type: 'binary_expr', operator: 'NOT LIKE SOME', right: { type: 'expr_list', value: [{ value: 'c' }] } });
    expect(all).toMatchObject({ type: 'binary_expr', operator: 'LIKE ALL', right: { type: 'unnest', expr: { type: 'column_ref' } } });
  });

  it('ARRAY_AGG(x) takes OVER, a window in parentheses or by name', () => {
    const [inline, named] = selected('select array_agg(x) over (partition by y), array_agg(x) over w from t');
    expect(inline).toMatchObject({ type: 'aggr_func', name: 'ARRAY_AGG', over: { type: 'window', as_window_specification: { window_specification: { partitionby: [{ expr: { type: 'column_ref' } }] } } } });
    expect(named).toMatchObject({ type: 'aggr_func', name: 'ARRAY_AGG', over: { type: 'window', as_window_specification: 'w' } });
  });

  it('STRUCT(...) is an operand: an operator may follow it', () => {
    expect(only('select struct(null) is distinct from null')).toMatchObject({ type: 'binary_expr', operator: 'IS DISTINCT FROM', left: { type: 'struct' } });
    expect(only('select struct(1) = struct(2) from t')).toMatchObject({ type: 'binary_expr', operator: '=', left: { type: 'struct' }, right: { type: 'struct' } });
  });

  it('STRUCT: positional, named and typed', () => {
    expect(selected("select struct(1, 2), struct(1 as a, 'x' as b), struct<a int64>(1) from t")).toMatchObject([
      { type: 'struct', expr_list: [{ expr: number(1), as: null }, { expr: number(2), as: null }] },
      { type: 'struct', expr_list: [{ expr: number(1), as: 'a' }, { expr: { value: 'x' }, as: 'b' }] },
      { type: 'struct', definition: { dataType: 'STRUCT', definition: [{ field_name: 'a', field_type: { dataType: 'INT64' } }] }, expr_list: [{ expr: number(1) }] },
    ]);
  });
});

describe('parameters', () => {
  it('a parameter name is an identifier: @p-1 is @p minus 1, as in BigQuery (patch 23)', () => {
    expect(only('select @p-1 from t')).toMatchObject({ type: 'binary_expr', operator: '-', left: { type: 'param', value: 'p' }, right: number(1) });
    expect(only('select @p_2 from t')).toMatchObject({ type: 'param', value: 'p_2' });
  });
});
