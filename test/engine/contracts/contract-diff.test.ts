/** Each kind of contract change, classed as a caller would feel it: one test per kind. */
import { describe, expect, it } from 'vitest';
import type { ColumnField, ColumnType, EndpointDefinition, ParamSpec } from '../../../src/core/types.js';
import { columnChanges, columnRenames, paramChanges, settingChanges, type Change } from '../../../src/engine/contracts/contract-diff.js';

type Spec = Omit<ParamSpec, 'description'>;
const string_ = (extra: Partial<Spec> = {}): Spec => ({ type: 'string', required: false, ...extra });
const kinds = (changes: Change[]) => changes.map((change) => [change.kind, change.compatibility, change.message]);

const scalar = (name: string): ColumnType => ({ kind: 'scalar', name: name as 'STRING' });
const record = (...fields: ColumnField[]): ColumnType => ({ kind: 'array', element: { kind: 'struct', fields } });
const column = (name: string, type: ColumnType): ColumnField => ({ name, type });

describe('parameters', () => {
  it('a new required parameter is breaking: callers that do not send it get missing_parameter', () => {
    expect(kinds(paramChanges({}, { region: string_({ required: true }) }))).toEqual([['param_added_required', 'breaking', 'new required parameter "region"']]);
  });

  it('a new optional parameter is compatible', () => {
    expect(kinds(paramChanges({}, { region: string_() }))).toEqual([['param_added_optional', 'compatible', 'new optional parameter "region"']]);
  });

  it('a removed parameter is breaking: callers that send it get unknown_parameter', () => {
    expect(kinds(paramChanges({ region: string_() }, {}))).toEqual([['param_removed', 'breaking', 'parameter "region" removed: callers sending it get unknown_parameter']]);
  });

  it('an optional parameter made required is breaking; the other way is compatible', () => {
    expect(kinds(paramChanges({ p: string_() }, { p: string_({ required: true }) }))).toEqual([['param_now_required', 'breaking', 'parameter "p" is now required']]);
    expect(kinds(paramChanges({ p: string_({ required: true }) }, { p: string_() }))).toEqual([['param_now_optional', 'compatible', 'parameter "p" is now optional']]);
  });

  it('a changed type is breaking', () => {
    expect(kinds(paramChanges({ n: string_() }, { n: { type: 'integer', required: false } }))).toEqual([['param_type_changed', 'breaking', 'parameter "n" changed type: string -> integer']]);
  });

  it('a narrowed enum is breaking, naming the values no longer accepted; a new enum narrows too', () => {
    expect(kinds(paramChanges({ i: string_({ enum: ['a', 'b', 'c'] }) }, { i: string_({ enum: ['a', 'c'] }) }))).toEqual([['enum_narrowed', 'breaking', 'parameter "i" no longer accepts b']]);
    expect(kinds(paramChanges({ i: string_() }, { i: string_({ enum: ['a'] }) }))).toEqual([['enum_narrowed', 'breaking', 'parameter "i" now only accepts a']]);
  });

  it('a widened enum is compatible; so is an enum dropped', () => {
    expect(kinds(paramChanges({ i: string_({ enum: ['a'] }) }, { i: string_({ enum: ['a', 'b'] }) }))).toEqual([['enum_widened', 'compatible', 'parameter "i" now also accepts b']]);
    expect(kinds(paramChanges({ i: string_({ enum: ['a'] }) }, { i: string_() }))).toEqual([['enum_widened', 'compatible', 'parameter "i" no longer limits its values (was a)']]);
  });

  it('an enum both narrowed and widened is both', () => {
    expect(kinds(paramChanges({ i: string_({ enum: ['a', 'b'] }) }, { i: string_({ enum: ['a', 'c'] }) })).map(([kind]) => kind)).toEqual(['enum_narrowed', 'enum_widened']);
  });

  it('a new or changed format is breaking; a dropped one is compatible', () => {
    expect(kinds(paramChanges({ p: string_() }, { p: string_({ format: 'regex' }) }))).toEqual([['format_added', 'breaking', 'parameter "p" must now be an RE2 regular expression']]);
    expect(kinds(paramChanges({ p: string_({ format: 'regex' }) }, { p: string_({ format: 'date-time' }) }))).toEqual([
      ['format_added', 'breaking', 'parameter "p" must now be an ISO 8601 timestamp (was regex)'],
    ]);
    expect(kinds(paramChanges({ p: string_({ format: 'regex' }) }, { p: string_() }))).toEqual([['format_removed', 'compatible', 'parameter "p" no longer needs format regex']]);
  });

  it('the same parameters are no change', () => {
    expect(paramChanges({ p: string_({ enum: ['a', 'b'] }) }, { p: string_({ enum: ['b', 'a'] }) })).toEqual([]);
  });
});

describe('columns', () => {
  it('a removed column is breaking', () => {
    expect(kinds(columnChanges([column('a', scalar('STRING')), column('b', scalar('INT64'))], [column('a', scalar('STRING'))]))).toEqual([['column_removed', 'breaking', 'column "b" removed']]);
  });

  it('a retyped column is breaking', () => {
    expect(kinds(columnChanges([column('t', scalar('TIMESTAMP'))], [column('t', scalar('DATETIME'))]))).toEqual([['column_retyped', 'breaking', '"t" changed type: TIMESTAMP -> DATETIME']]);
  });

  it('a new column is compatible', () => {
    expect(kinds(columnChanges([column('a', scalar('STRING'))], [column('a', scalar('STRING')), column('n', scalar('INT64'))]))).toEqual([['column_added', 'compatible', 'new column "n" (INT64)']]);
  });

  it('compares records field by field, at any depth', () => {
    const before = [column('metadata', record(column('request', record(column('path', scalar('STRING')), column('method', scalar('STRING'))))))];
    const after = [column('metadata', record(column('request', record(column('path', scalar('INT64')), column('host', scalar('INT64')), column('url', scalar('STRING'))))))];
    expect(kinds(columnChanges(before, after))).toEqual([
      ['column_retyped', 'breaking', '"metadata[].request[].path" changed type: STRING -> INT64'],
      ['column_added', 'compatible', 'new field "metadata[].request[].host" (INT64)'],
      ['column_added', 'compatible', 'new field "metadata[].request[].url" (STRING)'],
      ['column_removed', 'breaking', 'field "metadata[].request[].method" removed'],
    ]);
  });

  it('a column gone whose place a new one of the same type takes is renamed: breaking', () => {
    const before = [column('ts', scalar('TIMESTAMP')), column('total_auth_requests', scalar('INT64')), column('n', scalar('INT64'))];
    const after = [column('ts', scalar('TIMESTAMP')), column('total_auth', scalar('INT64')), column('n', scalar('INT64'))];
    expect(kinds(columnChanges(before, after))).toEqual([
      ['column_renamed', 'breaking', 'column "total_auth_requests" renamed to "total_auth" (INT64): callers reading "total_auth_requests" find no such column'],
    ]);
    expect(columnRenames(before, after)).toEqual(new Map([['total_auth_requests', 'total_auth']]));
    const nested = (name: string) => [column('metadata', record(column('request', record(column(name, scalar('STRING'))))))];
    expect(kinds(columnChanges(nested('method'), nested('verb')))).toEqual([
      ['column_renamed', 'breaking', 'field "metadata[].request[].method" renamed to "metadata[].request[].verb" (STRING): callers reading "method" find no such field'],
    ]);
  });

  it('a new column of another type, or in another place, is no rename', () => {
    expect(kinds(columnChanges([column('a', scalar('STRING')), column('b', scalar('INT64'))], [column('a', scalar('STRING')), column('c', scalar('STRING'))]))).toEqual([
      ['column_added', 'compatible', 'new column "c" (STRING)'],
      ['column_removed', 'breaking', 'column "b" removed'],
    ]);
    expect(columnRenames([column('a', scalar('STRING')), column('b', scalar('INT64'))], [column('c', scalar('INT64')), column('a', scalar('STRING'))])).toEqual(new Map());
  });

  it('a scalar that became a record is a retyped column', () => {
    expect(kinds(columnChanges([column('m', scalar('STRING'))], [column('m', record(column('x', scalar('STRING'))))]))).toEqual([
      ['column_retyped', 'breaking', '"m" changed type: STRING -> ARRAY<STRUCT<x STRING>>'],
    ]);
  });

  it('the same columns in another order are no change: rows are objects', () => {
    expect(columnChanges([column('a', scalar('STRING')), column('b', scalar('INT64'))], [column('b', scalar('INT64')), column('a', scalar('STRING'))])).toEqual([]);
  });
});

describe('settings', () => {
  const definition = (extra: Partial<EndpointDefinition> = {}): EndpointDefinition => ({
    id: '11111111-1111-4111-8111-111111111111',
    name: 'x',
    description: 'd',
    language: 'bq_sql',
    query: 'select 1',
    params: {},
    max_rows: 1000,
    cache: false,
    sandbox: true,
    redact_pii: false,
    ...extra,
  });

  it('sandbox off is breaking: the sql parameter is gone; sandbox on is compatible', () => {
    expect(kinds(settingChanges(definition(), definition({ sandbox: false })))).toEqual([['sandbox_disabled', 'breaking', 'sandbox off: callers sending sql get sandbox_not_enabled']]);
    expect(kinds(settingChanges(definition({ sandbox: false }), definition()))).toEqual([['sandbox_enabled', 'compatible', 'sandbox on: callers may send sql']]);
  });

  it('max_rows, cache and redaction changes are reported as compatible', () => {
    expect(kinds(settingChanges(definition(), definition({ max_rows: 500, cache: { ttl_seconds: 900, warm_every_seconds: 300 }, redact_pii: true })))).toEqual([
      ['max_rows_changed', 'compatible', 'max_rows 1000 -> 500'],
      ['cache_changed', 'compatible', 'cache off -> 900 s, warmed every 300 s'],
      ['redaction_changed', 'compatible', 'redact_pii on: every answer is redacted'],
    ]);
  });
});
