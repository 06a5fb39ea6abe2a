/** Where the console marks the service's refusal of sandbox SQL. */
import { describe, expect, it } from 'vitest';
import { violationSpan } from '../../web/src/violation.js';

const marked = (message: string, sql: string) => {
  const { from, to } = violationSpan(message, sql);
  return sql.slice(from, to);
};

describe('violationSpan', () => {
  it('marks the word at "line L, column C", 1-based as the parser counts', () => {
    const sql = 'select id\nfrom edge_logs\nwhere timestamp > > 3';
    expect(violationSpan('SQL syntax error at line 3, column 19: found ">", expected an expression', sql)).toEqual({ from: sql.lastIndexOf('> 3'), to: sql.lastIndexOf('> 3') + 1 });
    expect(marked('sql is not a SELECT the sandbox can read: SQL syntax error at line 1, column 15: found "edge_logs", expected ...', 'select id fro edge_logs')).toBe('edge_logs');
    expect(marked('QUALIFY is not supported on duckdb (line 2, column 8)', '-- a refusal of the translator\nselect qualify x')).toBe('qualify');
    expect(violationSpan('near end of input (line 2, column 40)', 'a\nb')).toEqual({ from: 3, to: 3 });
  });

  it('marks the name a message quotes, as the SQL writes it', () => {
    expect(marked('table `postgres.logs` is not allowed: ...', 'select 1 from `postgres.logs` as p')).toBe('`postgres.logs`');
    expect(marked('table `secrets` is not allowed: ...', 'select 1 from Secrets')).toBe('Secrets');
    expect(marked("function READ_CSV is not allowed in a sandbox query: it reaches outside the endpoint's data", "select 1, read_csv ('x')")).toBe('read_csv');
    expect(marked('@nope is not a parameter of this endpoint (declared: @project)', 'select @nope')).toBe('@nope');
    expect(marked('CTE "edge_logs" is already defined by the endpoint; choose another name', 'with x as (select 1), edge_logs as (select 2) select 1')).toBe('edge_logs');
    expect(marked('DELETE is not allowed: send exactly one SELECT statement', '-- hi\ndelete from edge_logs')).toBe('delete');
  });

  it('marks the first word when the message names no place', () => {
    expect(marked('send exactly one SELECT statement (got 2)', 'select 1; select 2')).toBe('select');
  });
});
