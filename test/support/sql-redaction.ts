/**
 * The SQL redaction rules (src/sql/sandbox/redaction-rules.ts) run by JavaScript's RegExp: what a sandbox
 * query reads with redaction on, for tests that work out expected rows. RE2 and RegExp agree on
 * these patterns (leftmost-first alternation, no backreferences); test/sql/sandbox/redaction-rules.test.ts
 * checks that they give what DuckDB's RE2 gives.
 */
import { REDACTION_RULES } from '../../src/sql/sandbox/redaction-rules.js';

const RULES = REDACTION_RULES.map((rule) => ({
  pattern: new RegExp(rule.pattern.replaceAll('\\x{80}', '\\u{80}').replaceAll('\\x{10FFFF}', '\\u{10FFFF}'), 'gu'),
  replacement: rule.replacement.replaceAll('\\1', '$1'),
}));

export function readRedacted(text: string): string {
  return RULES.reduce((value, rule) => value.replace(rule.pattern, rule.replacement), text);
}
