/** A grant's scopes against an endpoint (src/access/scopes.ts): what it may run, what is fixed, and a request's values under it. */
import { describe, expect, it } from 'vitest';
import { grantOf, mayReadEverything, type Scope } from '../../src/access/grant.js';
import { checkEndpoint, fixedValues, mayRun, scopedParams } from '../../src/access/scopes.js';
import { CanneryError } from '../../src/core/errors.js';
import type { EndpointDefinition } from '../../src/core/types.js';

function endpoint(name: string, params: EndpointDefinition['params']): EndpointDefinition {
  return { id: `00000000-0000-4000-8000-00000000000${name.length}`, name, description: '', language: 'bq_sql', query: '', params, max_rows: 10, cache: false, sandbox: false, redact_pii: false };
}

const LOGS = endpoint('logs.all', {
  project: { type: 'string', required: true },
  iso_timestamp_start: { type: 'string', format: 'date-time', required: false },
});
const PLAIN = endpoint('plain', {});
const grant = (...scopes: Scope[]) => grantOf('tenant', scopes, undefined, 'key tenant');

function refusal(run: () => unknown): { code: string; param: string | undefined; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CanneryError);
    const { code, param, message } = error as CanneryError;
    return { code, param, message };
  }
  throw new Error('not refused');
}

describe('scopes', () => {
  it('an unscoped grant runs everything as sent', () => {
    const all = grant({ endpoint: '*', params: {} });
    expect(all.unscoped).toBe(true);
    expect(mayReadEverything(all)).toBe(true);
    const entries: [string, string][] = [['project', 'x']];
    expect(scopedParams(all, LOGS, entries)).toBe(entries);
    expect(fixedValues(all, LOGS)).toBeUndefined();
  });

  it('fills in a fixed value the request leaves out or sends empty, and keeps one it repeats', () => {
    const abc = grant({ endpoint: 'logs.all', params: { project: 'abc' } });
    expect(mayReadEverything(abc)).toBe(false);
    expect(scopedParams(abc, LOGS, [])).toEqual([['project', 'abc']]);
    expect(scopedParams(abc, LOGS, [['project', '']])).toEqual([['project', 'abc']]);
    expect(scopedParams(abc, LOGS, [['project', 'abc'], ['iso_timestamp_start', '']])).toEqual([['project', 'abc'], ['iso_timestamp_start', '']]);
    expect(refusal(() => scopedParams(abc, LOGS, [['project', 'xyz']]))).toEqual({
      code: 'forbidden',
      param: 'project',
      message: 'parameter "project" is fixed for tenant: send "abc", or leave it out',
    });
    // Given twice, once the same: still another value.
    expect(refusal(() => scopedParams(abc, LOGS, [['project', 'abc'], ['project', 'xyz']])).param).toBe('project');
  });

  it('compares values as the endpoint reads them: the same instant in another zone is the fixed value', () => {
    const since = grant({ endpoint: '*', params: { project: 'abc', iso_timestamp_start: '2024-05-01T12:00:00Z' } });
    expect(scopedParams(since, LOGS, [['iso_timestamp_start', '2024-05-01T14:00:00+02:00']])).toEqual([
      ['iso_timestamp_start', '2024-05-01T14:00:00+02:00'],
      ['project', 'abc'],
    ]);
    expect(refusal(() => scopedParams(since, LOGS, [['iso_timestamp_start', '2024-05-01T12:00:01Z']])).param).toBe('iso_timestamp_start');
    expect(refusal(() => scopedParams(since, LOGS, [['iso_timestamp_start', 'not a time']])).param).toBe('iso_timestamp_start');
  });

  it('several scopes: the first that allows the request fills it in; the values are listed when every scope fixes them', () => {
    const two = grant({ endpoint: 'logs.all', params: { project: 'abc' } }, { endpoint: '*', params: { project: 'xyz' } });
    expect(scopedParams(two, LOGS, [])).toEqual([['project', 'abc']]);
    expect(scopedParams(two, LOGS, [['project', 'xyz']])).toEqual([['project', 'xyz']]);
    expect(refusal(() => scopedParams(two, LOGS, [['project', 'other']])).message).toBe('parameter "project" is fixed for tenant: send "abc" or "xyz", or leave it out');
    expect(fixedValues(two, LOGS)).toEqual({ project: ['abc', 'xyz'] });
    // One scope leaves project free: it is not fixed, though the first scope still fills it in when it is left out.
    const free = grant({ endpoint: 'logs.all', params: { project: 'abc' } }, { endpoint: 'logs.all', params: {} });
    expect(fixedValues(free, LOGS)).toBeUndefined();
    expect(scopedParams(free, LOGS, [['project', 'other']])).toEqual([['project', 'other']]);
  });

  it('an endpoint outside every scope, or one that does not take a fixed parameter, is 403 and not listed', () => {
    const abc = grant({ endpoint: '*', params: { project: 'abc' } });
    expect(mayRun(abc, LOGS)).toBe(true);
    expect(mayRun(abc, PLAIN)).toBe(false);
    expect(refusal(() => checkEndpoint(abc, PLAIN))).toEqual({
      code: 'forbidden',
      param: undefined,
      message: 'tenant fixes parameter "project", which plain does not take, so its answers could not be limited to that value',
    });
    const logsOnly = grant({ endpoint: LOGS.id.toUpperCase(), params: {} });
    expect(mayRun(logsOnly, LOGS)).toBe(true);
    expect(refusal(() => checkEndpoint(logsOnly, PLAIN)).message).toBe('tenant may not run plain');
    expect(refusal(() => scopedParams(logsOnly, PLAIN, [])).message).toBe('tenant may not run plain');
  });
});
