/**
 * PII redaction as SQL: the IPv4, IPv6 and e-mail rules of engine/serve/redact.ts written as RE2
 * patterns, which BigQuery's REGEXP_REPLACE and DuckDB's regexp_replace (RE2 too) both run. Used
 * where a sandbox query reads a string from an endpoint's CTEs while redaction is on
 * (sandbox/redact-reads.ts), so that SQL which takes a value apart sees it redacted already.
 *
 * RE2 has no lookaround, so these rules cannot reproduce every exception of the output redactor
 * (a User-Agent's `Chrome/126.0.0.0`, `1.2.3.4.5`, an octet over 255): they redact a superset of
 * what it redacts, never less. docs/redaction.md lists what differs; test/sql/sandbox/redaction-rules.test.ts
 * runs the output redactor's own cases through them on DuckDB.
 */
import type { Call, Expr, Literal } from '../parse/tree.js';

export const REDACTED = 'REDACTED';

/** An IPv6 group: one to four hex digits. */
const G = '[0-9A-Fa-f]{1,4}';
/** Four dotted numbers of one to three digits (a superset of 0-255). */
const V4 = String.raw`\d{1,3}(?:\.\d{1,3}){3}`;

/** What a text holds whenever the rule can match in it: a test far cheaper than the pattern. */
type Needs = { contains: string } | { atLeast: number; of: string };

export interface RedactionRule {
  about: string;
  pattern: string;
  /** `\1` puts back the character matched before the address (RE2 has no lookbehind). */
  replacement: string;
  /** Any one of these holds in every text the rule changes (none of the rules adds one). */
  needs: readonly Needs[];
}

export const REDACTION_RULES: readonly RedactionRule[] = [
  {
    // Eight groups, or fewer around one `::` (never `::` alone), the last 32 bits possibly as an
    // IPv4 address, with an optional zone. First, so an IPv4 tail goes with its address.
    about: 'IPv6',
    pattern: String.raw`(^|[^0-9A-Za-z_])(?:${G}(?::${G}){7}|(?:${G}:){6}${V4}|${G}(?::${G}){0,6}::(?:(?:${G}:){0,5}${V4}|${G}(?::${G}){0,6})?|::(?:(?:${G}:){0,5}${V4}|${G}(?::${G}){0,6}))(?:%[0-9A-Za-z._~-]+)?`,
    replacement: String.raw`\1${REDACTED}`,
    // `::`, or eight groups (seven colons), or six and an IPv4 tail (six).
    needs: [{ contains: '::' }, { atLeast: 6, of: ':' }],
  },
  {
    // Four dotted numbers not glued to a word on the left; before the e-mail rule, so an address
    // whose local part is an IPv4 address is whole when that rule looks.
    about: 'IPv4',
    pattern: String.raw`(^|[^0-9A-Za-z_])${V4}`,
    replacement: String.raw`\1${REDACTED}`,
    needs: [{ atLeast: 3, of: '.' }],
  },
  {
    // A local part, `@` or `%40`, and two or more labels, the last not starting with an ASCII digit.
    about: 'e-mail',
    pattern: String.raw`[\p{L}\p{M}\p{N}._%+-]+(?:@|%40)[\p{L}\p{M}\p{N}-]+(?:\.[\p{L}\p{M}\p{N}-]+)*\.[\p{L}\p{M}\x{80}-\x{10FFFF}][\p{L}\p{M}\p{N}-]+`,
    replacement: REDACTED,
    needs: [{ contains: '@' }, { contains: '%40' }],
  },
];

function string(value: string): Literal {
  return { kind: 'literal', type: 'string', value };
}

function int64(value: number): Literal {
  return { kind: 'literal', type: 'int64', value: String(value) };
}

function call(name: string, ...args: Expr[]): Call {
  return { kind: 'call', name, args };
}

/** `text` holds what the rule needs: STRPOS, or a count of a character by LENGTH and REPLACE. */
function holds(text: Expr, needs: readonly Needs[]): Expr {
  return needs
    .map((need): Expr => {
      if ('contains' in need) return { kind: 'binary', operator: '>', left: call('strpos', text, string(need.contains)), right: int64(0) };
      const count: Expr = { kind: 'binary', operator: '-', left: call('length', text), right: call('length', call('replace', text, string(need.of), string(''))) };
      return { kind: 'binary', operator: '>=', left: count, right: int64(need.atLeast) };
    })
    .reduce((one, other) => ({ kind: 'binary', operator: 'OR', left: one, right: other }));
}

/** An expression cheap to read twice: a column, a field of one, a literal or a parameter. */
function isPlain(expr: Expr): boolean {
  if (expr.kind === 'field') return isPlain(expr.operand);
  return expr.kind === 'column' || expr.kind === 'literal' || expr.kind === 'param';
}

/**
 * `expr` with every address redacted: one REGEXP_REPLACE per rule, in order. On a plain value each
 * runs only where the text holds what the rule needs (tested on the value as read: no rule adds a
 * mark a later one needs), since RE2 tries a pattern at every position of every text, and most log
 * lines have no IPv6 address or e-mail in them; about ten times cheaper on a line with neither.
 */
export function redactedExpr(expr: Expr): Expr {
  const guarded = isPlain(expr);
  let redacted: Expr = expr;
  for (const rule of REDACTION_RULES) {
    const replaced = call('regexp_replace', redacted, string(rule.pattern), string(rule.replacement));
    redacted = guarded ? { kind: 'case', whens: [{ when: holds(expr, rule.needs), then: replaced }], else: redacted } : replaced;
  }
  return { ...redacted, loc: expr.loc };
}
