/**
 * String functions as BigQuery computes them: positions and lengths in characters (code points,
 * where DuckDB's REVERSE and TRIM go by graphemes), ICU's case mapping (DuckDB maps ß to ẞ),
 * white space as Unicode's (DuckDB's TRIM trims spaces alone), errors for a negative length or an
 * empty pad, and the BYTES forms, written over the bytes' hex digits or as Latin-1 text (one
 * character per byte) where DuckDB has no BLOB function. The regular expressions are RE2 on both.
 */
import { capturingGroups } from '../analyse/regex-groups.js';
import { hostCall, hostValues } from '../dialects/duckdb/host-functions.js';
import { quoteString } from '../dialects/duckdb/quote.js';
import { raise, repeatable } from '../dialects/duckdb/semantics.js';
import { fail, failWhen, literalString, literalValue, nullIfNull } from './arguments.js';
import { MANY, scalar, type CallContext, type FunctionSpec, type Render } from './call.js';
import { boundedCount } from './output-bounds.js';

/** Unicode's White_Space characters: what TRIM removes by default (DuckDB's removes spaces alone). */
const WHITE_SPACE = `(${[9, 10, 11, 12, 13, 32, 133, 160, 5760, 8192, 8193, 8194, 8195, 8196, 8197, 8198, 8199, 8200, 8201, 8202, 8232, 8233, 8239, 8287, 12288].map((code) => `chr(${code})`).join(' || ')})`;

function isBytes(call: CallContext, index: number): boolean {
  const node = call.argNodes[index];
  return node !== undefined && call.typeOf(node) === 'bytes';
}

/** An untyped NULL, which GoogleSQL coerces to either kind. */
function isNull(call: CallContext, index: number): boolean {
  const node = call.argNodes[index];
  return node?.kind === 'literal' && node.type === 'null';
}

/**
 * GoogleSQL's error for a call mixing STRING and BYTES where it takes all of one (a literal is no
 * exception: neither coerces to the other), at compile time where the query's text says both
 * types. Returns the kind the arguments at `indexes` are known to be, if any.
 */
function oneKind(call: CallContext, indexes: readonly number[]): 'string' | 'bytes' | undefined {
  const known = indexes.map((index) => ({ index, type: call.argNodes[index] === undefined ? undefined : call.typeOf(call.argNodes[index]) }));
  const bytes = known.find(({ type }) => type === 'bytes');
  const other = known.find(({ type }) => type !== undefined && type !== 'bytes');
  if (bytes !== undefined && other !== undefined) {
    const name = call.name.toUpperCase();
    const [first, second] = bytes.index < other.index ? [bytes, other] : [other, bytes];
    return call.invalid(`No matching signature for function ${name}: argument ${second.index + 1} is ${second.type!.toUpperCase()} where argument ${first.index + 1} is ${first.type!.toUpperCase()} (${name} takes all STRING or all BYTES)`);
  }
  return bytes !== undefined ? 'bytes' : other !== undefined ? 'string' : undefined;
}

/**
 * `value`, or GoogleSQL's error where an argument at `indexes` whose type the query does not say
 * (a column) turns out at run time not to be of the kind the others are. DuckDB's typeof() is
 * constant for the query, so the test folds away where the types agree: no cost per row. The
 * rendering must bind either way: DuckDB reads a STRING as BYTES (hex()) where it would answer.
 */
function sameKindAtRunTime(call: CallContext, indexes: readonly number[], kind: 'string' | 'bytes', value: string, takes = 'all STRING or all BYTES'): string {
  const unknown = unknownTypes(call, indexes);
  if (unknown.length === 0) return value;
  const misfit = unknown.map((index) => (kind === 'bytes' ? notBlob(call.args[index]!) : `typeof(${call.args[index]}) = 'BLOB'`));
  return runTimeError(call, misfit.join(' OR '), `an argument is ${kind === 'bytes' ? 'not BYTES' : 'BYTES'}, where it takes ${takes}`, value);
}

/** The arguments at `indexes` whose type the query does not say (an untyped NULL fits either kind). */
function unknownTypes(call: CallContext, indexes: readonly number[]): number[] {
  return indexes.filter((index) => call.argNodes[index] !== undefined && call.typeOf(call.argNodes[index]) === undefined && !isNull(call, index));
}

function notBlob(sql: string): string {
  return `typeof(${sql}) NOT IN ('BLOB', '"NULL"')`;
}

/** `value`, or the signature error where `condition` (constant for the query) holds; typed as NULL is, so either kind binds. */
function runTimeError(call: CallContext, condition: string, why: string, value: string): string {
  return `(CASE WHEN ${condition} THEN (CASE WHEN ${raise(`No matching signature for function ${call.name.toUpperCase()}: ${why}`)} = 0 THEN NULL END) ELSE ${value} END)`;
}

/**
 * CONCAT's rule: all BYTES, or none (the others are cast to STRING); an error at compile time
 * where the query's text says both, at run time where a column's type decides.
 */
export function oneKindJoined(call: CallContext, value: string): string {
  const all = call.args.map((_, index) => index);
  const kind = oneKind(call, all);
  if (kind !== undefined) return sameKindAtRunTime(call, all, kind, value, 'all BYTES or none');
  const unknown = unknownTypes(call, all);
  if (unknown.length < 2) return value;
  const anyBytes = unknown.map((index) => `typeof(${call.args[index]}) = 'BLOB'`).join(' OR ');
  const anyOther = unknown.map((index) => notBlob(call.args[index]!)).join(' OR ');
  return runTimeError(call, `(${anyBytes}) AND (${anyOther})`, 'an argument is BYTES and another is not, where it takes all BYTES or none', value);
}

/**
 * Whether a call over arguments of one type (STRING or BYTES) is over BYTES: any of them says so,
 * as `b'x'` does for a column whose type the query does not say (`STARTS_WITH(col, b'x')`); one
 * known to be a STRING beside it is GoogleSQL's error.
 */
function overBytes(call: CallContext, indexes: readonly number[]): boolean {
  return oneKind(call, indexes) === 'bytes';
}

/** BYTES as text of one character per byte (U+0000 to U+00FF), so DuckDB's string functions count bytes. */
function latin1(bytes: string): string {
  return `array_to_string(list_transform(regexp_extract_all(hex(${bytes}), '..'), __h -> chr(CAST(('0x' || __h) AS INTEGER))), '')`;
}

/** Latin-1 text back to its BYTES. */
function fromLatin1(text: string, refuse: (what: string) => never): string {
  const value = repeatable(text, refuse);
  return `(CASE WHEN ${value} = '' THEN CAST('' AS BLOB) ELSE unhex(array_to_string(list_transform(string_split(${value}, ''), __c -> printf('%02X', unicode(__c))), '')) END)`;
}

/**
 * A function of STRING or BYTES: `text` renders it over strings; for BYTES the arguments at
 * `bytesArgs` are read as Latin-1 text first, and a BYTES result is turned back.
 */
function textOrBytes(text: Render, options: { bytesArgs?: readonly number[]; bytesResult?: boolean } = {}): Render {
  return (call) => {
    const positions = options.bytesArgs ?? [0];
    if (!overBytes(call, positions)) return text(call);
    const args = call.args.map((arg, index) => (positions.includes(index) ? latin1(arg) : arg));
    const result = text({ ...call, args });
    return sameKindAtRunTime(call, positions, 'bytes', options.bytesResult === false ? result : fromLatin1(result, call.refuse));
  };
}

/** A length argument that must not be negative (a literal needs no check). */
function nonNegative(call: CallContext, index: number, message: string): string {
  const sql = call.args[index]!;
  const literal = literalValue(call, index);
  if (typeof literal === 'string' && Number(literal) >= 0) return sql;
  const value = repeatable(sql, call.refuse);
  return failWhen(call, `${value} < 0`, message, value);
}

/** LOWER and UPPER: DuckDB's for ASCII text (the same answer, faster), ICU's full mapping otherwise. */
function caseMapping(direction: 'lower' | 'upper'): Render {
  return (call) => {
    if (isBytes(call, 0)) {
      // BYTES: ASCII letters only.
      const [from, to] = direction === 'lower' ? ['ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'] : ['abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'];
      return fromLatin1(`translate(${latin1(call.args[0]!)}, '${from}', '${to}')`, call.refuse);
    }
    const text = repeatable(call.args[0]!, call.refuse);
    return `(CASE WHEN strlen(${text}) = length(${text}) THEN ${direction}(${text}) ELSE ${hostCall(direction, text)} END)`;
  };
}

/** TRIM and its one-sided forms: a set of characters, or Unicode white space. */
function trimming(duckName: 'trim' | 'ltrim' | 'rtrim'): Render {
  return textOrBytes((call) => `${duckName}(${call.args[0]}, ${call.args[1] ?? WHITE_SPACE})`, { bytesArgs: [0, 1] });
}

/**
 * REGEXP_REPLACE, its written replacement checked as BigQuery checks it before replacing anything:
 * a backslash takes `\\` or the number of a capturing group (DuckDB answered `\2` where the pattern
 * has no group 2, or a trailing backslash, with the text unchanged or the backslash dropped). A
 * replacement that is not a literal is not checked.
 */
function regexpReplace(call: CallContext): string {
  const rewrite = literalValue(call, 2);
  const pattern = literalValue(call, 1);
  if (typeof rewrite === 'string') {
    const groups = typeof pattern === 'string' ? capturingGroups(pattern) : 9;
    for (let index = 0; index < rewrite.length; index++) {
      if (rewrite[index] !== '\\') continue;
      const next = rewrite[++index];
      if (next === '\\' || (next !== undefined && /^[0-9]$/.test(next) && Number(next) <= groups)) continue;
      return call.invalid(`Invalid REGEXP_REPLACE replacement ${JSON.stringify(rewrite)}: a backslash must be followed by a backslash or the number of a capturing group (0 to ${groups})`);
    }
  }
  return `regexp_replace(${call.args.join(', ')}, 'g')`;
}

/** The capturing group REGEXP_EXTRACT returns (0: the whole match). */
function extractedGroup(call: CallContext): number {
  const pattern = literalString(call, 1, 'a pattern');
  const groups = capturingGroups(pattern);
  if (groups > 1) return call.invalid(`Regular expressions passed into extraction functions must not have more than 1 capturing group: ${pattern}`);
  return groups;
}

function regexpExtract(call: CallContext): string {
  const group = extractedGroup(call);
  const [value, pattern, position, occurrence] = call.args;
  for (const index of [2, 3]) {
    const literal = literalValue(call, index);
    if (typeof literal === 'string' && Number(literal) < 1) return call.invalid(`${index === 2 ? 'Position' : 'Occurrence'} in ${call.name.toUpperCase()} must be positive`);
  }
  const searched = position === undefined ? value : `substring(${value}, ${position})`;
  // The n-th match, NULL when there are fewer (DuckDB's regexp_extract gives '' for no match).
  return `regexp_extract_all(${searched}, ${pattern}, ${group})[${occurrence ?? '1'}]`;
}

/**
 * BigQuery reads position 0 as 1; DuckDB would start one character before the string. With a
 * length, a position left of the start (below -LENGTH) is 1 too, where DuckDB counts the length
 * from there (SUBSTR('hello', -10, 3) is 'hel', not ''). A negative length is an error.
 */
function substring(call: CallContext): string {
  const [text, position, length] = call.args;
  const p = repeatable(position!, call.refuse);
  if (length === undefined) return `substring(${text}, (CASE WHEN ${p} = 0 THEN 1 ELSE ${p} END))`;
  const literal = literalValue(call, 1);
  const positive = typeof literal === 'string' && Number(literal) > 0;
  const t = repeatable(text!, call.refuse);
  const start = positive ? p : `(CASE WHEN ${p} = 0 OR ${p} < -length(${t}) THEN 1 ELSE ${p} END)`;
  return `substring(${t}, ${start}, ${nonNegative(call, 2, 'Length in SUBSTR must be non-negative')})`;
}

/** LEFT and RIGHT: a negative length is an error. */
function side(duckName: 'left' | 'right'): Render {
  return textOrBytes((call) => `${duckName}(${call.args[0]}, ${nonNegative(call, 1, `Length in ${call.name.toUpperCase()} must be non-negative`)})`);
}

/** LPAD and RPAD: the value truncated or padded to a length (negative: an error) with a pattern (empty: an error; a space by default). */
function padding(duckName: 'lpad' | 'rpad'): Render {
  return textOrBytes(
    (call) => {
      const length = nonNegative(call, 1, `Second argument (output size) for ${call.name.toUpperCase()} cannot be negative`);
      const pattern = call.args[2] ?? `' '`;
      const literal = literalValue(call, 2);
      const checked = typeof literal === 'string' && literal !== '' && !isBytes(call, 0) ? pattern : failWhen(call, `${repeatable(pattern, call.refuse)} = ''`, `Third argument (pad pattern) for ${call.name.toUpperCase()} cannot be empty`, pattern, 'VARCHAR');
      const size = repeatable(length, call.refuse);
      // The output's length in characters (bytes for BYTES, one character each here).
      const known = literalValue(call, 1);
      return `${duckName}(${call.args[0]}, CAST(${boundedCount(call, size, size, typeof known === 'string' ? Number(known) : undefined)} AS INTEGER), ${checked})`;
    },
    { bytesArgs: [0, 2] },
  );
}

function repeat(call: CallContext): string {
  const value = repeatable(call.args[0]!, call.refuse);
  const count = repeatable(nonNegative(call, 1, 'Second argument (repeat count) for REPEAT cannot be negative'), call.refuse);
  // In DOUBLE: the product of a length and an INT64 count can overflow one.
  const bytes = `(CAST(${isBytes(call, 0) ? 'octet_length' : 'strlen'}(${value}) AS DOUBLE) * ${count})`;
  const [text, times] = [literalValue(call, 0), literalValue(call, 1)];
  const known = typeof text === 'string' && typeof times === 'string' && !isBytes(call, 0) ? new TextEncoder().encode(text).length * Number(times) : undefined;
  return `repeat(${value}, ${boundedCount(call, bytes, count, known)})`;
}

/** REVERSE by characters (DuckDB's reverse keeps grapheme clusters together) or by bytes. */
function reverse(call: CallContext): string {
  if (isBytes(call, 0)) return `unhex(array_to_string(list_reverse(regexp_extract_all(hex(${call.args[0]}), '..')), ''))`;
  return `array_to_string(list_reverse(string_split(${call.args[0]}, '')), '')`;
}

/** The code point of the first character (0 for ''): ASCII's (an error beyond it) or any (UNICODE). */
function firstCodePoint(ascii: boolean): Render {
  return (call) => {
    const value = repeatable(call.args[0]!, call.refuse);
    if (isBytes(call, 0)) return `(CASE WHEN octet_length(${value}) = 0 THEN 0 ELSE CAST(('0x' || left(hex(${value}), 2)) AS BIGINT) END)`;
    const code = `CAST(unicode(${value}) AS BIGINT)`;
    const checked = ascii ? failWhen(call, `${code} > 127`, 'Argument to ASCII is not a structurally valid ASCII string', code) : code;
    return `(CASE WHEN ${value} = '' THEN 0 ELSE ${checked} END)`;
  };
}

/** CHR: the character of a code point, '' for 0; a code point that is none is an error. */
function character(call: CallContext): string {
  const code = repeatable(call.args[0]!, call.refuse);
  return `(CASE WHEN ${code} < 0 OR ${code} > 1114111 OR ${code} BETWEEN 55296 AND 57343 THEN ${fail(call, 'Invalid codepoint', 'VARCHAR')} ELSE chr(CAST(${code} AS INTEGER)) END)`;
}

/** CODE_POINTS_TO_STRING and CODE_POINTS_TO_BYTES: NULL for a NULL element, an error for one out of range. */
function fromCodePoints(bytes: boolean): Render {
  return (call) => {
    const points = repeatable(call.args[0]!, call.refuse);
    const invalid = bytes ? '__c < 0 OR __c > 255' : '__c < 0 OR __c > 1114111 OR __c BETWEEN 55296 AND 57343';
    const written = bytes
      ? `unhex(array_to_string(list_transform(${points}, __c -> printf('%02X', __c)), ''))`
      : `array_to_string(list_transform(${points}, __c -> (CASE WHEN __c = 0 THEN '' ELSE chr(CAST(__c AS INTEGER)) END)), '')`;
    return `(CASE WHEN list_bool_or(list_transform(${points}, __c -> __c IS NULL)) THEN NULL WHEN list_bool_or(list_transform(${points}, __c -> ${invalid})) THEN ${fail(call, bytes ? 'Invalid ASCII value' : 'Invalid codepoint', bytes ? 'BLOB' : 'VARCHAR')} ELSE ${written} END)`;
  };
}

function toCodePoints(call: CallContext): string {
  const value = repeatable(call.args[0]!, call.refuse);
  if (isBytes(call, 0)) return `list_transform(regexp_extract_all(hex(${value}), '..'), __h -> CAST(('0x' || __h) AS BIGINT))`;
  return `(CASE WHEN ${value} = '' THEN CAST([] AS BIGINT[]) ELSE list_transform(string_split(${value}, ''), __c -> CAST(unicode(__c) AS BIGINT)) END)`;
}

/** The bytes of a STRING or BYTES argument, for functions that read bytes (hashes, host functions). */
export function bytesOf(call: CallContext, index: number): string {
  return isBytes(call, index) ? call.args[index]! : `encode(${call.args[index]})`;
}

/**
 * A host function of STRING or BYTES at `indexes` (one for each kind): the one the query's text
 * says; where no argument's type is written (columns), the one DuckDB's typeof() picks, constant
 * for the query, with each argument cast to that kind so both branches bind, and the signature
 * error where the columns turn out to be of both kinds.
 */
function hostOfKind(call: CallContext, indexes: readonly number[], forString: (args: string[]) => string, forBytes: (args: string[]) => string): string {
  const kind = oneKind(call, indexes);
  if (kind === 'string') return forString(call.args);
  if (kind === 'bytes') return sameKindAtRunTime(call, indexes, 'bytes', forBytes(call.args));
  const unknown = unknownTypes(call, indexes);
  if (unknown.length === 0) return forString(call.args);
  const cast = (duckType: string) => call.args.map((arg, index) => (indexes.includes(index) ? `CAST(${repeatable(arg, call.refuse)} AS ${duckType})` : arg));
  const picked = `(CASE WHEN typeof(${call.args[unknown[0]!]}) = 'BLOB' THEN ${forBytes(cast('BLOB'))} ELSE ${forString(cast('VARCHAR'))} END)`;
  if (unknown.length < 2) return picked;
  const anyBytes = unknown.map((index) => `typeof(${call.args[index]}) = 'BLOB'`).join(' OR ');
  const anyOther = unknown.map((index) => notBlob(call.args[index]!)).join(' OR ');
  return runTimeError(call, `(${anyBytes}) AND (${anyOther})`, 'an argument is BYTES and another is not, where it takes all STRING or all BYTES', picked);
}

function editDistance(call: CallContext): string {
  const distance = hostOfKind(call, [0, 1], ([a, b]) => hostCall('edit_distance', a!, b!), ([a, b]) => hostCall('edit_distance_bytes', a!, b!));
  const limit = call.named.max_distance;
  if (limit === undefined) return distance;
  const max = repeatable(limit.sql, call.refuse);
  return failWhen(call, `${max} < 0`, 'max_distance in EDIT_DISTANCE must be non-negative', `least(${distance}, ${max})`);
}

function instr(call: CallContext): string {
  const [, , position = '1', occurrence = '1'] = call.args;
  return hostOfKind(call, [0, 1], ([v, s]) => hostCall('instr', v!, s!, position, occurrence), ([v, s]) => hostCall('instr_bytes', v!, s!, position, occurrence));
}

function regexpInstr(call: CallContext): string {
  const [value, pattern, position = '1', occurrence = '1', occurrencePosition = '0'] = call.args;
  if (isBytes(call, 0)) return call.refuse('REGEXP_INSTR of BYTES');
  return hostCall('regexp_instr', value!, pattern!, position, occurrence, occurrencePosition);
}

function initcap(call: CallContext): string {
  return call.args[1] === undefined ? hostCall('initcap_default', call.args[0]!) : hostCall('initcap', call.args[0]!, call.args[1]);
}

const NORMALIZATION_MODES = ['nfc', 'nfkc', 'nfd', 'nfkd'];

function normalization(casefold: boolean): Render {
  return (call) => hostCall('normalize', call.args[0]!, quoteString((call.parts[1] ?? 'nfc').toUpperCase()), casefold ? 'true' : 'false');
}

/** CHAR_LENGTH: of a STRING only (DuckDB's length of a BLOB is no function either). */
function charLength(call: CallContext): string {
  const type = call.typeOf(call.argNodes[0]!);
  if (type !== undefined && type !== 'string') return call.invalid(`No matching signature for function ${call.name.toUpperCase()} for argument types: ${type.toUpperCase()} (it takes a STRING)`);
  return `length(${call.args[0]})`;
}

/** TO_HEX: of BYTES only (DuckDB's hex() writes a STRING's bytes, or a number, where BigQuery has no signature). */
function toHex(call: CallContext): string {
  const type = call.typeOf(call.argNodes[0]!);
  if (type !== undefined && type !== 'bytes') return call.invalid(`No matching signature for function TO_HEX for argument types: ${type.toUpperCase()} (it takes BYTES)`);
  return sameKindAtRunTime(call, [0], 'bytes', `lower(hex(${call.args[0]}))`, 'BYTES');
}

/** FROM_HEX: an odd number of digits is read with a leading 0. */
function fromHex(call: CallContext): string {
  const value = repeatable(call.args[0]!, call.refuse);
  return `unhex(CASE WHEN strlen(${value}) % 2 = 1 THEN '0' || ${value} ELSE ${value} END)`;
}

/** SPLIT: on a delimiter (`,` by default); an empty one splits into characters (or bytes). */
function split(call: CallContext): string {
  const { args, wrap } = nullIfNull(call, [1]);
  const delimiter = args[1] ?? `','`;
  if (!overBytes(call, [0, 1])) return wrap(`string_split(${args[0]}, ${delimiter})`);
  return sameKindAtRunTime(call, [0, 1], 'bytes', wrap(`list_transform(string_split(${latin1(args[0]!)}, ${latin1(delimiter)}), __part -> ${fromLatin1('__part', call.refuse)})`));
}

/** FORMAT: printf-style, %t and %T writing any value; its values reach the host function with their types. */
function format(call: CallContext): string {
  const values = call.args.slice(1).map((value) => repeatable(value, call.refuse));
  return hostCall('format', call.args[0]!, ...hostValues(values));
}

/** CONTAINS_SUBSTR: the value (any type) reaches the host function with its type; a NULL search text is an error. */
function containsSubstr(call: CallContext): string {
  const search = call.argNodes[1];
  if (search?.kind === 'literal' && search.type === 'null') return call.invalid('CONTAINS_SUBSTR\'s search value cannot be NULL');
  const scope = call.named.json_scope?.sql ?? `'JSON_VALUES'`;
  return hostCall('contains_substr', ...hostValues([repeatable(call.args[0]!, call.refuse)]), call.args[1]!, scope);
}

const STRING_OR_BYTES = { sameAs: 0 } as const;

export const STRING_FUNCTIONS: ReadonlyMap<string, FunctionSpec> = new Map<string, FunctionSpec>([
  ['regexp_contains', scalar('whether the RE2 pattern matches anywhere in the string', [2, 2], (call) => `regexp_matches(${call.args.join(', ')})`, { returns: 'bool' })],
  ['regexp_replace', scalar('every match of the RE2 pattern replaced', [3, 3], regexpReplace, { returns: 'string' })],
  ['regexp_extract', scalar('the first (or n-th, from a position) match of the pattern, or of its one capturing group; NULL when none', [2, 4], regexpExtract, { returns: 'string' })],
  ['regexp_substr', scalar('same as REGEXP_EXTRACT', [2, 4], regexpExtract, { returns: 'string' })],
  ['regexp_extract_all', scalar('every match of the pattern, or of its one capturing group, as an array', [2, 2], (call) => `regexp_extract_all(${call.args[0]}, ${call.args[1]}, ${extractedGroup(call)})`)],
  ['regexp_instr', scalar('the 1-based position of the n-th match of the pattern (or of its capturing group, or just after it), 0 when none', [2, 5], regexpInstr, { returns: 'int64' })],
  ['starts_with', scalar('whether the string starts with the prefix', [2, 2], textOrBytes((call) => `starts_with(${call.args[0]}, ${call.args[1]})`, { bytesArgs: [0, 1], bytesResult: false }), { returns: 'bool' })],
  ['ends_with', scalar('whether the string ends with the suffix', [2, 2], textOrBytes((call) => `ends_with(${call.args[0]}, ${call.args[1]})`, { bytesArgs: [0, 1], bytesResult: false }), { returns: 'bool' })],
  ['lower', scalar('lower case (ICU\'s full case mapping; BYTES: ASCII letters only)', [1, 1], caseMapping('lower'), { returns: STRING_OR_BYTES })],
  ['upper', scalar('upper case (ICU\'s full case mapping: ß is SS; BYTES: ASCII letters only)', [1, 1], caseMapping('upper'), { returns: STRING_OR_BYTES })],
  ['initcap', scalar('each word\'s first character upper case, the rest lower case (words split at white space and punctuation, or at the given delimiters)', [1, 2], initcap, { returns: 'string' })],
  ['length', scalar('characters in a string, bytes in BYTES', [1, 1], (call) => (isBytes(call, 0) ? `octet_length(${call.args[0]})` : `length(${call.args[0]})`), { returns: 'int64' })],
  ['char_length', scalar('characters in a string', [1, 1], charLength, { returns: 'int64' })],
  ['character_length', scalar('same as CHAR_LENGTH', [1, 1], charLength, { returns: 'int64' })],
  ['byte_length', scalar('bytes in a STRING (UTF-8) or BYTES value', [1, 1], (call) => `octet_length(${bytesOf(call, 0)})`, { returns: 'int64' })],
  ['octet_length', scalar('same as BYTE_LENGTH', [1, 1], (call) => `octet_length(${bytesOf(call, 0)})`, { returns: 'int64' })],
  ['trim', scalar('leading and trailing characters of a set (Unicode white space by default) removed', [1, 2], trimming('trim'), { returns: STRING_OR_BYTES })],
  ['ltrim', scalar('leading characters removed', [1, 2], trimming('ltrim'), { returns: STRING_OR_BYTES })],
  ['rtrim', scalar('trailing characters removed', [1, 2], trimming('rtrim'), { returns: STRING_OR_BYTES })],
  ['strpos', scalar('1-based position of the substring, 0 when absent', [2, 2], textOrBytes((call) => `strpos(${call.args[0]}, ${call.args[1]})`, { bytesArgs: [0, 1], bytesResult: false }), { returns: 'int64' })],
  ['instr', scalar('1-based position of the n-th occurrence of a substring from a position (backward from the end when negative), 0 when none', [2, 4], instr, { returns: 'int64' })],
  ['substr', scalar('substring from a 1-based position (0 reads as 1), optionally of a length (an error if negative)', [2, 3], textOrBytes(substring), { returns: STRING_OR_BYTES })],
  ['substring', scalar('same as SUBSTR', [2, 3], textOrBytes(substring), { returns: STRING_OR_BYTES })],
  ['left', scalar('the first n characters (bytes for BYTES); a negative n is an error', [2, 2], side('left'), { returns: STRING_OR_BYTES })],
  ['right', scalar('the last n characters (bytes for BYTES); a negative n is an error', [2, 2], side('right'), { returns: STRING_OR_BYTES })],
  ['lpad', scalar('padded on the left with a pattern (a space by default) to a length, or truncated to it', [2, 3], padding('lpad'), { returns: STRING_OR_BYTES })],
  ['rpad', scalar('padded on the right with a pattern (a space by default) to a length, or truncated to it', [2, 3], padding('rpad'), { returns: STRING_OR_BYTES })],
  ['repeat', scalar('the value repeated n times (a negative n is an error)', [2, 2], repeat, { returns: STRING_OR_BYTES })],
  ['reverse', scalar('the characters (or bytes) in reverse order', [1, 1], reverse, { returns: STRING_OR_BYTES })],
  ['replace', scalar('every occurrence of a substring replaced', [3, 3], textOrBytes((call) => `replace(${call.args.join(', ')})`, { bytesArgs: [0, 1, 2] }), { returns: STRING_OR_BYTES })],
  ['translate', scalar('each character of the source set replaced by the target\'s at its position, or removed (a repeated source character is an error)', [3, 3], (call) => hostCall('translate', ...call.args), { returns: 'string' })],
  ['split', scalar('the string split on a delimiter (`,` by default; an empty one splits into characters) into an array', [1, 2], split)],
  ['format', scalar('printf-style formatting: %d %i %o %x %X of INT64, %f %e %g of FLOAT64, %s of STRING, %t (any value as text), %T (as a literal)', [1, MANY], format, { returns: 'string' })],
  ['contains_substr', scalar('whether the text is in the value (any type; every field of a STRUCT or ARRAY, a JSON value\'s values or keys), NFKC-normalized and case-insensitively', [2, 2], containsSubstr, { returns: 'bool', named: ['json_scope'] })],
  ['ascii', scalar('the code of the first character or byte (0 for an empty value; an error beyond ASCII)', [1, 1], firstCodePoint(true), { returns: 'int64' })],
  ['unicode', scalar('the code point of the first character (0 for an empty string)', [1, 1], firstCodePoint(false), { returns: 'int64' })],
  ['chr', scalar('the character of a Unicode code point (CHR(0) is the NUL character)', [1, 1], character, { returns: 'string' })],
  ['code_points_to_string', scalar('the string of an array of code points (NULL if one is NULL)', [1, 1], fromCodePoints(false), { returns: 'string' })],
  ['code_points_to_bytes', scalar('the BYTES of an array of byte values 0 to 255 (NULL if one is NULL)', [1, 1], fromCodePoints(true), { returns: 'bytes' })],
  ['to_code_points', scalar('the code points of a string, or the byte values of BYTES, as an array', [1, 1], toCodePoints)],
  ['safe_convert_bytes_to_string', scalar('BYTES read as UTF-8, each byte of an invalid sequence replaced by U+FFFD', [1, 1], (call) => hostCall('safe_convert_bytes', call.args[0]!), { returns: 'string' })],
  ['normalize', scalar('the string in a Unicode normalization form (NFC, the default, NFKC, NFD or NFKD)', [1, 2], normalization(false), { dateParts: [1], parts: NORMALIZATION_MODES, returns: 'string' })],
  ['normalize_and_casefold', scalar('the string normalized (NFC by default) and case-folded, for case-insensitive comparison', [1, 2], normalization(true), { dateParts: [1], parts: NORMALIZATION_MODES, returns: 'string' })],
  ['soundex', scalar('the Soundex code of the string\'s Latin letters (\'\' when it has none)', [1, 1], (call) => hostCall('soundex', call.args[0]!), { returns: 'string' })],
  ['edit_distance', scalar('the Levenshtein distance in characters (bytes for BYTES), capped at max_distance', [2, 2], editDistance, { returns: 'int64', named: ['max_distance'] })],
  ['to_hex', scalar('BYTES as lower-case hexadecimal', [1, 1], toHex, { returns: 'string' })],
  ['from_hex', scalar('the BYTES of hexadecimal text (an odd number of digits reads a leading 0; other characters are an error)', [1, 1], fromHex, { returns: 'bytes' })],
  ['to_base64', scalar('BYTES in base64 (standard alphabet, padded)', [1, 1], (call) => `to_base64(${call.args[0]})`, { returns: 'string' })],
  ['from_base64', scalar('the BYTES of base64 text (an error when it is none)', [1, 1], (call) => `from_base64(${call.args[0]})`, { returns: 'bytes' })],
  ['to_base32', scalar('BYTES in base32 (RFC 4648, padded)', [1, 1], (call) => hostCall('to_base32', call.args[0]!), { returns: 'string' })],
  ['from_base32', scalar('the BYTES of base32 text (an error when it is none)', [1, 1], (call) => hostCall('from_base32', call.args[0]!), { returns: 'bytes' })],
]);
