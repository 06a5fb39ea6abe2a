/**
 * fast-check arbitraries for what a caller controls: paths, query strings, parameter values,
 * headers, JSON bodies and sandbox SQL. Each mixes plausible input (real names, values a client
 * would send, SQL a log client would write) with hostile input (unicode, control characters,
 * huge and repeated values, malformed encodings, SQL the sandbox must refuse), since plausible
 * input reaches the deep code paths and hostile input tries the edges of each.
 */
import fc from 'fast-check';

export const ENDPOINT_IDS = ['logs.all', 'usage.api-counts', 'b699a50c-0586-48fa-95e6-6041369c6c05', '90EA8432-727F-4399-8617-F3FE240BA64A'];
const DECLARED = ['project', 'iso_timestamp_start', 'iso_timestamp_end', 'interval', 'sql'];

/** Percent-encodes every UTF-8 byte outside the unreserved set, as a careful client does. */
export function encodeAll(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * Leaves printable ASCII as it is (a raw `%` makes malformed escapes, a raw `+` a space) and
 * encodes the rest, as a careless client does; `&`, `=` and `#` stay raw only where `keep` says.
 */
function encodeLoosely(text: string, keep: RegExp = /[&=#]/): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    out += code >= 0x21 && code <= 0x7e && !keep.test(char) ? char : encodeAll(char);
  }
  return out;
}

const encoded = (text: fc.Arbitrary<string>) =>
  fc.tuple(text, fc.boolean()).map(([value, careful]) => (careful ? encodeAll(value) : encodeLoosely(value)));

/** Broken escapes and encodings: a lone `%`, a non-hex escape, truncated or overlong UTF-8, NUL. */
const brokenEscape = fc.constantFrom('%', '%z', '%4', '%E0%A4', '%C3%28', '%FF%FE', '%C0%AF', '%00', '%ED%A0%80', '%%', '%25', '%2', '%u0041');

/** Any code point (except lone surrogates), control characters included. */
const anyText = fc.string({ unit: 'binary', maxLength: 30 });
const graphemes = fc.string({ unit: 'grapheme', maxLength: 15 });
const controlText = fc.string({ unit: fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code)), minLength: 1, maxLength: 8 });

/** Values a client might send for a parameter, right or wrong. */
const plausibleValue = fc.constantFrom(
  'alpha',
  'beta',
  'qzvmkdwtrjxhbnpalcoe',
  'minutely',
  'hourly',
  'daily',
  'MINUTELY',
  '',
  ' ',
  '2024-05-01T10:00:00Z',
  '2024-05-01T10:00:00+02:00',
  '2024-05-01 10:00:00.1234567890Z',
  '2024-05-01T10:00:00',
  '2024-13-45T25:61:61Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999999Z',
  '-271821-04-20T00:00:00Z',
  '1714557600',
  '(',
  '[a-',
  '\\',
  '(?<name>x)',
  '(?P<name>x)',
  '.*',
  'a{1001}',
  '((((((((((a))))))))))*',
  "' or 1=1 --",
  "x'); drop table y; --",
  '@project',
  '$1',
  '{{projectId}}',
  'null',
  'NaN',
  '-0',
  '1e309',
  'true',
);

/**
 * A long run of one small piece, short enough that a URL of several stays within node's 16 KiB of
 * request line and headers (past it node answers 431 itself, before cannery runs): longer values
 * go in a POST body (`hugeValue`).
 */
const longValue = fc.tuple(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 4 }), fc.integer({ min: 100, max: 150 })).map(([piece, times]) => piece.repeat(times));

/** Far past any sensible value: for JSON bodies. */
export const hugeValue = fc.tuple(fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }), fc.integer({ min: 10_000, max: 200_000 })).map(([piece, times]) => piece.repeat(times));

export const parameterValue = fc.oneof(
  { weight: 4, arbitrary: plausibleValue },
  { weight: 2, arbitrary: anyText },
  { weight: 1, arbitrary: graphemes },
  { weight: 1, arbitrary: controlText },
  { weight: 1, arbitrary: longValue },
);

const parameterName = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...DECLARED) },
  { weight: 1, arbitrary: fc.constantFrom('projct', 'Project', 'project ', 'project[]', '__proto__', 'constructor', 'hasOwnProperty', '', 'sql ', 'SQL') },
  { weight: 1, arbitrary: anyText },
);

/** `name=value` pairs, repeats allowed, joined with the odd malformed separator. */
export const queryString = fc
  .array(
    fc.oneof(
      { weight: 8, arbitrary: fc.tuple(encoded(parameterName), encoded(parameterValue)).map(([name, value]) => `${name}=${value}`) },
      { weight: 1, arbitrary: encoded(parameterName) },
      { weight: 1, arbitrary: fc.tuple(encoded(parameterName), brokenEscape).map(([name, broken]) => `${name}=${broken}`) },
      { weight: 1, arbitrary: fc.constantFrom('=', '==', '&', ';', 'project==alpha', 'project=alpha=beta') },
    ),
    { maxLength: 6 },
  )
  .map((pairs) => pairs.join('&'));

const pathSegment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ENDPOINT_IDS) },
  { weight: 2, arbitrary: encoded(anyText) },
  { weight: 1, arbitrary: encoded(graphemes) },
  { weight: 1, arbitrary: brokenEscape },
  { weight: 1, arbitrary: fc.constantFrom('..', '.', '%2e%2e', '%2E', '', '%2F', '%5C', 'logs.all%00', 'logs.all;x', 'LOGS.ALL', 'logs.all.', '%20logs.all') },
);

export const path = fc
  .tuple(
    fc.constantFrom('/api/endpoints/query/', '/api/endpoints/query', '/api/endpoints/', '/api/', '/', '//', '/health', '/health/', '/openapi.json', '/API/endpoints/query/'),
    fc.array(pathSegment, { maxLength: 3 }),
    fc.option(queryString, { nil: undefined }),
    fc.boolean(),
  )
  .map(([prefix, segments, query, fragment]) => `${prefix}${segments.join('/')}${query === undefined ? '' : `?${query}`}${fragment ? '#frag' : ''}`);

/** A query path of a real endpoint with a fuzzed query string. */
export const queryPath = fc.tuple(fc.constantFrom(...ENDPOINT_IDS), queryString).map(([id, query]) => `/api/endpoints/query/${id}?${query}`);

/** What node lets a header value hold: tab, printable ASCII and the Latin-1 upper half. */
const headerText = fc.string({
  unit: fc.oneof(fc.constant('\t'), fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff })).map((code) => (typeof code === 'string' ? code : String.fromCharCode(code))),
  maxLength: 40,
});

export function headers(validKey: string): fc.Arbitrary<Record<string, string>> {
  const key = fc.oneof(
    { weight: 4, arbitrary: fc.constant(validKey) },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', `${validKey} `, `${validKey}, ${validKey}`, validKey.toUpperCase(), `${validKey}\t`) },
    { weight: 1, arbitrary: headerText },
  );
  return fc.record(
    {
      'x-api-key': key,
      authorization: fc.oneof(key.map((value) => `Bearer ${value}`), fc.constantFrom('bearer', 'Bearer', 'Basic dXNlcjpwYXNz', 'Bearer  '), headerText),
      'svc-endpoint-redact-pii': fc.oneof(fc.constantFrom('true', 'TRUE', ' false ', 'false', 'yes', '', '1', 'true, true', 'tru\u00e9'), headerText),
      'if-none-match': fc.oneof(fc.constantFrom('*', 'W/"x"', '"abc", W/"def"', '""', '"'), headerText),
      'content-type': fc.oneof(fc.constantFrom('application/json', 'application/json; charset=latin1', 'text/plain', 'multipart/form-data; boundary=x'), headerText),
      accept: fc.oneof(fc.constantFrom('application/json', 'text/csv', 'application/x-ndjson', '*/*', 'text/html', 'application/json;q=0', 'text/csv;q=abc, */*;q=0.1'), headerText),
      'x-forwarded-for': headerText,
      'x-fuzz': headerText,
    },
    { requiredKeys: [] },
  );
}

/** POST bodies: JSON objects of parameters, other JSON, not JSON at all, and large ones. */
export const postBody = fc.oneof(
  { weight: 4, arbitrary: fc.dictionary(parameterName, fc.oneof(parameterValue, fc.jsonValue({ maxDepth: 2 })), { maxKeys: 5 }).map((body) => JSON.stringify(body)) },
  { weight: 2, arbitrary: fc.json({ maxDepth: 3 }) },
  { weight: 1, arbitrary: anyText },
  { weight: 1, arbitrary: fc.constantFrom('', '{', '{"project":', 'null', '[]', '"alpha"', '{"project":"alpha","project":"beta"}', '{"__proto__":{"sql":"select 1"}}') },
  {
    weight: 1,
    // Past the 1 MiB cap, and just under it.
    arbitrary: fc.constantFrom(1_100_000, 900_000).map((size) => JSON.stringify({ project: 'alpha', sql: `select '${'x'.repeat(size)}' as x` })),
  },
);

// --- sandbox SQL ---------------------------------------------------------------------------
//
// Most statements are well formed, with expressions of the right shape on real columns, so they
// get past the parser to the sandbox rules, the translator and DuckDB; the values inside them
// (numbers, strings, patterns, casts) are where they go wrong. The rest is mangled or hostile.

const CTES = ['edge_logs', 'postgres_logs', 'function_edge_logs', 'function_logs', 'auth_logs', 'realtime_logs', 'storage_logs', 'postgrest_logs', 'pgbouncer_logs'];
const TYPES = ['string', 'int64', 'float64', 'numeric', 'bool', 'timestamp', 'datetime', 'date', 'time'];
const PARTS = ['microsecond', 'millisecond', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'];

/** A BigQuery string literal holding any text, escaped as BigQuery reads it. */
const sqlString = anyText.map((text) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`);
const sqlNumber = fc.oneof(
  { weight: 6, arbitrary: fc.integer().map(String) },
  { weight: 5, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true }).map((value) => value.toFixed(3)) },
  // Extremes: INT64's bounds and past them, the largest and smallest doubles (exponent literals
  // and integers past 2^53 are refused by the translator: 400, unsupported SQL).
  { weight: 1, arbitrary: fc.constantFrom('0', '-1', '9223372036854775807', '-9223372036854775808', '9223372036854775808', '1e308', '1e-320', '0.1', '-(-1)') },
);
const pattern = fc.oneof(
  fc.constantFrom("'ERROR'", "'(?i)error'", "'^GET'", "'[0-9]+'", "'[a-'", "'(?<n>x)'", "'\\\\'", "'a{1001}'", "'(a*)*b'", "''", "'\\\\p{Greek}'", "'(?P<x>.)'"),
  sqlString,
);
const stringColumn = fc.constantFrom('id', 'event_message', 'cast(timestamp as string)');
const stringValue = fc.oneof({ weight: 3, arbitrary: stringColumn }, { weight: 2, arbitrary: sqlString });
const numberValue = fc.oneof(sqlNumber, stringColumn.map((column) => `length(${column})`), fc.constant('unix_micros(timestamp)'));

const { stringExpr, numberExpr, timestampExpr, predicate } = fc.letrec((tie) => ({
  stringExpr: fc.oneof(
    { depthSize: 'small' },
    stringValue,
    fc.tuple(fc.constantFrom('lower', 'upper', 'trim', 'ltrim'), tie('stringExpr')).map(([name, value]) => `${name}(${value})`),
    fc.tuple(tie('stringExpr'), numberValue, fc.option(numberValue, { nil: undefined })).map(([value, from, length]) => `substr(${value}, ${from}${length ? `, ${length}` : ''})`),
    fc.tuple(tie('stringExpr'), pattern, stringValue).map(([value, regex, replacement]) => `regexp_replace(${value}, ${regex}, ${replacement})`),
    fc.tuple(tie('stringExpr'), stringValue).map(([a, b]) => `concat(${a}, ${b})`),
    fc.tuple(tie('stringExpr'), stringValue, stringValue).map(([a, b, c]) => `replace(${a}, ${b}, ${c})`),
    fc.tuple(tie('stringExpr'), fc.constantFrom(...TYPES)).map(([value, type]) => `cast(safe_cast(${value} as ${type}) as string)`),
    fc.tuple(sqlString, tie('timestampExpr')).map(([format, value]) => `format_timestamp(${format}, ${value})`),
    fc.tuple(tie('predicate'), tie('stringExpr'), tie('stringExpr')).map(([when, a, b]) => `if(${when}, ${a}, ${b})`),
  ),
  numberExpr: fc.oneof(
    { depthSize: 'small' },
    numberValue,
    fc.tuple(tie('numberExpr'), fc.constantFrom('+', '-', '*', '/'), tie('numberExpr')).map(([a, op, b]) => `(${a} ${op} ${b})`),
    fc.tuple(fc.constantFrom('abs', 'round', 'floor', 'ceil', 'sqrt'), tie('numberExpr')).map(([name, value]) => `${name}(${value})`),
    fc.tuple(fc.constantFrom('mod', 'pow', 'safe_divide'), tie('numberExpr'), tie('numberExpr')).map(([name, a, b]) => `${name}(${a}, ${b})`),
    fc.tuple(tie('stringExpr'), stringValue).map(([value, needle]) => `strpos(${value}, ${needle})`),
    fc.tuple(tie('stringExpr'), fc.constantFrom('int64', 'float64', 'numeric')).map(([value, type]) => `safe_cast(${value} as ${type})`),
    tie('stringExpr').map((value) => `cast(${value} as int64)`),
    fc.tuple(tie('stringExpr'), sqlString).map(([value, separator]) => `array_length(split(${value}, ${separator}))`),
  ),
  timestampExpr: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom('timestamp', 'current_timestamp()', "timestamp '2024-05-01 10:00:00+00'", 'cast(@iso_timestamp_start as timestamp)'),
    fc.tuple(tie('timestampExpr'), fc.constantFrom(...PARTS)).map(([value, part]) => `timestamp_trunc(${value}, ${part})`),
    fc.tuple(tie('timestampExpr'), sqlNumber, fc.constantFrom('microsecond', 'second', 'minute', 'hour', 'day')).map(([value, n, unit]) => `timestamp_add(${value}, interval ${n} ${unit})`),
    tie('numberExpr').map((value) => `timestamp_micros(cast(${value} as int64))`),
    tie('stringExpr').map((value) => `cast(${value} as timestamp)`),
  ),
  predicate: fc.oneof(
    { depthSize: 'small' },
    fc.tuple(tie('stringExpr'), pattern).map(([value, regex]) => `regexp_contains(${value}, ${regex})`),
    fc.tuple(tie('stringExpr'), fc.constantFrom('=', '!=', '<', '>='), tie('stringExpr')).map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(tie('numberExpr'), fc.constantFrom('=', '<', '>', '<>'), tie('numberExpr')).map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(tie('timestampExpr'), fc.constantFrom('>', '<=', '='), tie('timestampExpr')).map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(tie('stringExpr'), sqlString).map(([value, like]) => `${value} like ${like}`),
    fc.tuple(tie('stringExpr'), fc.array(sqlString, { minLength: 1, maxLength: 3 })).map(([value, list]) => `${value} in (${list.join(', ')})`),
    fc.tuple(stringColumn, fc.boolean()).map(([column, not]) => `${column} is ${not ? 'not ' : ''}null`),
    fc.tuple(tie('predicate'), fc.constantFrom('and', 'or'), tie('predicate')).map(([a, op, b]) => `(${a} ${op} ${b})`),
    tie('predicate').map((value) => `not ${value}`),
    fc.tuple(fc.constantFrom(...CTES), tie('predicate')).map(([cte, where]) => `exists (select 1 from ${cte} where ${where})`),
  ),
}));

const selectItem = fc.oneof(
  fc.constantFrom('id', 'timestamp', 'event_message', 'metadata', '*'),
  stringExpr,
  numberExpr,
  timestampExpr,
  predicate,
);
const aggregate = fc.oneof(
  fc.constantFrom('count(*)', 'count(distinct id)', 'min(timestamp)', 'max(event_message)', "string_agg(id, ',')", 'array_agg(id)', 'any_value(metadata)'),
  predicate.map((value) => `countif(${value})`),
  numberExpr.map((value) => `sum(${value})`),
  numberExpr.map((value) => `avg(${value})`),
  predicate.map((value) => `logical_and(${value})`),
);
const fromClause = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...CTES) },
  { weight: 2, arbitrary: fc.constantFrom(...CTES).map((cte) => `${cte} as t cross join unnest(t.metadata) as m`) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...CTES), fc.constantFrom(...CTES)).map(([a, b]) => `(select id, timestamp, event_message, metadata from ${a} union all select id, timestamp, event_message, metadata from ${b})`) },
);
const limit = fc.option(fc.oneof(fc.nat({ max: 2000 }).map(String), fc.constantFrom('0', '9223372036854775807', '1 offset 3')), { nil: undefined });
const orderBy = fc.option(fc.constantFrom('1', '1 desc', '1 asc nulls last'), { nil: undefined });

/** Rows (columns and expressions, filtered) or one group of aggregates per id or overall. */
const selectStatement = fc.oneof(
  fc.tuple(fc.array(fc.tuple(selectItem, fc.boolean()), { minLength: 1, maxLength: 3 }), fromClause, fc.option(predicate, { nil: undefined }), orderBy, limit).map(([items, from, where, order, rows]) =>
    [
      `select ${items.map(([item, alias], i) => (alias && item !== '*' ? `${item} as c${i}` : item)).join(', ')}`,
      `from ${from}`,
      where && `where ${where}`,
      order && `order by ${order}`,
      rows && `limit ${rows}`,
    ]
      .filter(Boolean)
      .join(' '),
  ),
  fc.tuple(fc.array(aggregate, { minLength: 1, maxLength: 3 }), fromClause, fc.option(predicate, { nil: undefined }), fc.boolean(), limit).map(([aggregates, from, where, perId, rows]) =>
    [
      `select ${perId ? 'id, ' : ''}${aggregates.map((item, i) => `${item} as a${i}`).join(', ')}`,
      `from ${from}`,
      where && `where ${where}`,
      perId && 'group by id',
      rows && `limit ${rows}`,
    ]
      .filter(Boolean)
      .join(' '),
  ),
);

/** Statements the sandbox must refuse: other kinds, other relations, functions that reach outside. */
const hostileSql = fc.constantFrom(
  'select 1; select 2',
  "attach '/tmp/x.db' as x",
  'pragma version',
  "copy (select 1) to '/tmp/x.csv'",
  "set memory_limit = '1TB'",
  'install httpfs',
  'select * from `cloudflare.logs.prod`',
  'select * from "postgres.logs"',
  'select * from information_schema.tables',
  'select * from duckdb_settings()',
  "select * from read_csv('/etc/passwd')",
  "select getenv('HOME')",
  "select current_setting('memory_limit')",
  'select * from range(1000000000)',
  'select * from main.edge_logs',
  'with edge_logs as (select 1 as id) select * from edge_logs',
  'select * from edge_logs as a, edge_logs as b, edge_logs as c, edge_logs as d',
  `select ${'('.repeat(500)}1${')'.repeat(500)}`,
  `select ${Array.from({ length: 2000 }, (_, i) => `${i}`).join(' + ')}`,
  "select 1 -- trailing comment",
  'select 1 /* unclosed',
  `select '${'\\'.repeat(1001)}'`,
  'select @project, @nope',
  'select @@version',
);

const TOKENS = [';', "'", '"', '`', '(', ')', '--', '/*', ',', 'union all', 'select', 'from', 'with', 'attach', 'pragma', '\\', '\0', '@', '$1', '?', '::', '[', ']', '0x10', 'struct(1 as a)', '[1, 2]'];

/** A well-formed statement with a token dropped in somewhere, or cut short. */
const mutated = fc.tuple(selectStatement, fc.nat(), fc.constantFrom(...TOKENS), fc.boolean()).map(([sql, at, token, cut]) => {
  const index = at % (sql.length + 1);
  return cut ? sql.slice(0, index) : `${sql.slice(0, index)} ${token} ${sql.slice(index)}`;
});

export const sandboxSql = fc.oneof(
  { weight: 8, arbitrary: selectStatement },
  { weight: 2, arbitrary: fc.tuple(selectStatement, selectStatement).map(([a, b]) => `with mine as (${a}) select * from mine where exists (${b})`) },
  { weight: 2, arbitrary: hostileSql },
  { weight: 3, arbitrary: mutated },
  { weight: 1, arbitrary: anyText },
);
