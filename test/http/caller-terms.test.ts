/**
 * Errors in the caller's terms (issue 38), over the real server and a real DuckDB: sandbox SQL
 * that DuckDB refuses is answered with the BigQuery function the caller wrote and GoogleSQL's
 * types, never a host function's registered name (`cannery_edit_distance`), a DuckDB type
 * (VARCHAR, a STRUCT spelled out field by field), the translated SQL or a path on the server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES } from '../sql/sandbox/fixtures.js';
import { startTestService, TEST_KEY, type TestService } from '../support/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ fixtures: FIXTURES });
});
afterAll(() => svc.close());

async function refusal(sql: string): Promise<{ status: number; message: string }> {
  const response = await fetch(`${svc.url}/api/endpoints/query/logs.all`, {
    method: 'POST',
    headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ project: 'alpha', sql }),
  });
  const body = (await response.json()) as { result?: unknown[]; error?: { message: string } };
  return { status: response.status, message: body.error?.message ?? '' };
}

/** What no message may hold: internal names, DuckDB's spellings of types, translated SQL, server paths. */
function internals(message: string): string[] {
  const words = [/cannery_/, /\b(VARCHAR|BIGINT|HUGEINT|INTEGER|DOUBLE|BOOLEAN|BLOB|TIMESTAMPTZ|INTEGER_LITERAL|STRING_LITERAL)\b/, /WITH TIME ZONE/, /STRUCT\(/, /\w\[\]/];
  const sql = [/LINE \d/, /list_transform|__v\b|CAST\(|typeof\(/, /\bstrlen\b|\bepoch_us\b|\bjson_valid\b/];
  const paths = [svc.dir, process.cwd()];
  return [...words, ...sql].filter((pattern) => pattern.test(message)).map(String).concat(paths.filter((path) => message.includes(path)));
}

const FROM = 'from edge_logs as e cross join unnest(e.metadata) as m';

describe('errors in the caller’s terms', () => {
  it.each([
    // A host function by the BigQuery name the caller wrote, and the argument that does not fit.
    ["select edit_distance(1, 'a') as d", "No matching signature for function EDIT_DISTANCE: argument 1 is INT64, where it takes STRING"],
    ["select edit_distance('a', true) as d", 'No matching signature for function EDIT_DISTANCE: argument 2 is BOOL, where it takes STRING'],
    ["select instr('abc', 'b', 'x') as i", 'Could not convert string \'x\' to INT64'],
    ["select instr(date '2024-01-01', 'b') as i", 'No matching signature for function INSTR: argument 1 is DATE, where it takes STRING'],
    ['select format(1, 2) as f', 'No matching signature for function FORMAT: argument 1 is INT64, where it takes STRING'],
    ['select json_query_array(1) as a', 'No matching signature for function JSON_QUERY_ARRAY (or JSON_EXTRACT_ARRAY): argument 1 is INT64, where it takes STRING'],
    ['select net.ip_from_string(1) as b', 'No matching signature for function NET.IP_FROM_STRING (or NET.SAFE_IP_FROM_STRING): argument 1 is INT64'],
    ['select to_base32(1) as b', 'No matching signature for function TO_BASE32: argument 1 is INT64, where it takes BYTES'],
    // BigQuery's own functions and operators, with GoogleSQL's types.
    ['select sum(event_message) as s from edge_logs', 'No matching signature for function SUM for argument types: STRING'],
    ["select 1 + 'a' as x", 'No matching signature for operator + for argument types: INT64, STRING'],
    ["select [1] || ['a'] as x", 'Cannot concatenate lists of types ARRAY<INT64> and ARRAY<STRING>'],
    // Casts: GoogleSQL's names on both sides.
    ["select cast(timestamp '2024-01-01' as int64) as n", 'Unimplemented type for cast (TIMESTAMP -> INT64)'],
    ["select cast(b'x' as int64) as n", 'Unimplemented type for cast (BYTES -> INT64)'],
    ['select cast(true as date) as d', 'Unimplemented type for cast (BOOL -> DATE)'],
    // A record: its STRUCT in GoogleSQL's words, cut short, never its thousands of characters.
    [
      `select 1 as x ${FROM} where m > 1`,
      'Cannot compare values of type STRUCT<load_balancer_redirect_identifier STRING, logflare_worker ARRAY<STRUCT<...>>, request ARRAY<STRUCT<...>>, response ARRAY<STRUCT<...>>> and type INT64',
    ],
    [`select 1 as x ${FROM} where m.request = 'x'`, /Type STRING with value 'x' can't be cast to the destination type ARRAY<STRUCT<cf ARRAY<STRUCT<\.\.\.>>, (\w+ [A-Z<>.]+, ){3}\.\.\. \d+ more>>/],
    ["select concat('a', e.metadata) as x from edge_logs as e", 'Cannot concatenate types STRING and ARRAY<STRUCT<'],
  ])('%s', async (sql, expected) => {
    const { status, message } = await refusal(sql);
    expect(status).toBe(400);
    expect(message).toMatch(expected);
    expect(internals(message)).toEqual([]);
    // A source's metadata is some 3,000 characters of DuckDB's type: cut short, it is a line.
    expect(message.length).toBeLessThan(400);
  });

  it('an error BigQuery raises at run time is its message alone, not the cast the embedded engine raises it with', async () => {
    for (const [sql, raised] of [
      ['select 1 / 0 as x', 'division by zero'],
      ["select numeric '1' / numeric '0' as x", 'division by zero'],
      ["select cast('x' as int64) as x", 'Bad int64 value: x'],
      ['select [1, 2][offset(5)] as x', 'Array index out of bounds: OFFSET'],
    ]) {
      const { status, message } = await refusal(sql!);
      expect(status, sql).toBe(400);
      expect(message, sql).toBe(`sql cannot run: logs.all: the query failed: ${raised}`);
    }
  });

  it('a helper of a rendering, which the caller never wrote, is not named', async () => {
    // UPPER checks its argument with DuckDB's strlen first; TIMESTAMP_DIFF with epoch_us.
    for (const sql of ['select upper(1) as u', "select timestamp_diff(timestamp '2024-01-01', 1, day) as d"]) {
      const { status, message } = await refusal(sql);
      expect(status).toBe(400);
      expect(message).toMatch(/No matching signature for argument types: INT64 \(a function of the query was given an argument of a type it does not take\)/);
      expect(internals(message)).toEqual([]);
    }
  });

  it('over a generated set of calls with an argument of the wrong type, no message names an internal or a DuckDB type', async () => {
    // Functions rendered by host functions, each with arguments that fit; one at a time is replaced.
    const calls: [string, string[]][] = [
      ['edit_distance', ["'a'", "'b'"]],
      ['instr', ["'abc'", "'b'", '1', '1']],
      ['regexp_instr', ["'abc'", "'b'"]],
      ['translate', ["'abc'", "'a'", "'b'"]],
      ['soundex', ["'abc'"]],
      ['initcap', ["'abc'", "' '"]],
      ['normalize', ["'abc'"]],
      ['from_base32', ["'ME======'"]],
      ['to_base32', ["b'x'"]],
      ['safe_convert_bytes_to_string', ["b'x'"]],
      ['format', ["'%s'", "'x'"]],
      ['parse_json', ["'1'"]],
      ['parse_numeric', ["'1'"]],
      ['json_query', ["'{}'", "'$.a'"]],
      ['json_value', ["'{}'", "'$.a'"]],
      ['json_value_array', ["'[]'"]],
      ['json_type', ["json '1'"]],
      ['net.ip_from_string', ["'10.0.0.1'"]],
      ['net.ip_to_string', ["b'abcd'"]],
      ['net.ipv4_from_int64', ['1']],
      ['net.ip_net_mask', ['4', '8']],
      ['net.ip_trunc', ["b'abcd'", '8']],
    ];
    const wrong = ['1', 'true', 'm', 'e.timestamp', "date '2024-01-01'", '[1, 2]', "b'x'", "'x'"];
    let refused = 0;
    for (const [name, args] of calls) {
      for (let position = 0; position < args.length; position += 1) {
        for (const value of wrong) {
          const sql = `select ${name}(${args.map((arg, index) => (index === position ? value : arg)).join(', ')}) as v ${FROM} limit 1`;
          const { status, message } = await refusal(sql);
          expect(status, sql).toBeLessThan(500);
          if (status === 200) continue;
          refused += 1;
          expect(internals(message), `${sql}\n${message}`).toEqual([]);
          const named = /No matching signature for function (.+?)(?::| for )/.exec(message)?.[1];
          if (named !== undefined) expect(named, `${sql}\n${message}`).toContain(name.toUpperCase());
        }
      }
    }
    // Most of them are refusals: the set says something.
    expect(refused).toBeGreaterThan(100);
  });
});
