/**
 * Capturing groups of an RE2 pattern. BigQuery's REGEXP_EXTRACT returns the match of the one
 * capturing group, or the whole match when there is none, and refuses a pattern with more.
 */

/** The number of capturing groups: `(`...`)` and `(?P<name>`...`)`, not `(?:`, `(?i)` or escaped / bracketed parentheses. */
export function capturingGroups(pattern: string): number {
  let groups = 0;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      continue;
    }
    if (char === '[') {
      inClass = true;
      // A `]` right after `[` or `[^` is a literal member of the class.
      if (pattern[i + 1] === '^') i++;
      if (pattern[i + 1] === ']') i++;
      continue;
    }
    if (char !== '(') continue;
    if (pattern[i + 1] !== '?') groups++;
    else if (pattern[i + 2] === 'P' && pattern[i + 3] === '<') groups++;
  }
  return groups;
}
