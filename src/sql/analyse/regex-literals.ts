/**
 * The literal text an RE2 pattern requires, read from the pattern's syntax tree: a set of strings
 * at least one of which every match contains, and whether the pattern matches exactly the strings
 * containing one of them. `REGEXP_CONTAINS(x, 'ab(c|d)')` can then test `strpos` before running the
 * regular expression (docs/sql.md), or instead of it.
 *
 * The parser knows RE2's syntax (https://github.com/google/re2/wiki/Syntax) as far as it decides
 * what is literal: a construct it does not know makes the whole pattern require nothing, never a
 * wrong literal. Case-insensitive parts (`(?i)`) require nothing either.
 */

/** The pattern's syntax tree, reduced to what decides its literals. */
type Node =
  | { kind: 'char'; text: string }
  | { kind: 'empty' }
  /** A character class, `.`, an assertion or a case-folded character: text this analysis does not track. */
  | { kind: 'other' }
  | { kind: 'concat'; items: Node[] }
  | { kind: 'alternate'; options: Node[] }
  | { kind: 'repeat'; item: Node; min: number; max: number | undefined };

export interface RequiredLiterals {
  /** At least one of these is in every string the pattern matches; none is empty. */
  literals: string[];
  /** The pattern matches exactly the strings that contain one of them. */
  exact: boolean;
}

/** Most literals a requirement may have: each is one `strpos` per row. */
export const MAX_LITERALS = 4;
/** Most strings a pattern's exact set is worked out for (`(a|b)(c|d)` has 4). */
const MAX_EXACT = 16;
/** RE2's own limit on a repetition count, and on the product of the counts of nested repetitions. */
const MAX_REPEAT = 1000;
/**
 * Longest literal worked out, in characters. Nested repetitions multiply ('((a{1000}){1000}){500}'
 * spells a string of 5e8 characters in 22): a longer literal is left out (it would only make the
 * prefilter's search longer), before it is built.
 */
export const MAX_LITERAL_LENGTH = 4096;
/** RE2's own limit on how deeply groups nest (kMaxNestingDepth). */
const MAX_NESTING = 1000;

class Unknown extends Error {}

/** `\` + one of these is that character itself, in RE2 as in Perl. */
const PUNCTUATION = /^[!-/:-@[-`{-~]$/;
const CONTROL_ESCAPES: Readonly<Record<string, string>> = { a: '\x07', f: '\f', t: '\t', n: '\n', r: '\r', v: '\v' };
/** Escapes that stand for a class of characters or a position, two characters long. */
const CLASS_ESCAPES = new Set(['d', 'D', 's', 'S', 'w', 'W', 'b', 'B', 'A', 'z', 'C']);

function parse(pattern: string): Node {
  const chars = [...pattern];
  let at = 0;
  let depth = 0;

  const peek = (offset = 0) => chars[at + offset];

  function alternation(fold: boolean): Node {
    const options: Node[] = [];
    let state = { fold };
    for (;;) {
      const items: Node[] = [];
      while (at < chars.length && peek() !== '|' && peek() !== ')') {
        const flags = flagGroup(state.fold);
        if (flags !== undefined) {
          // `(?i)` changes the flags up to the end of the enclosing group, across `|` too.
          state = { fold: flags };
          // A repetition right after it (`a(?i){2}`) is read by RE2 in ways not worth modelling.
          if ('*+?{'.includes(peek() ?? '')) throw new Unknown();
          continue;
        }
        const atom = atomAt(state.fold);
        items.push(repetition(atom));
      }
      options.push(items.length === 1 ? items[0]! : items.length === 0 ? { kind: 'empty' } : { kind: 'concat', items });
      if (peek() !== '|') break;
      at += 1;
    }
    return options.length === 1 ? options[0]! : { kind: 'alternate', options };
  }

  /** `(?flags)` alone: the new case folding; undefined when the text here is not one. */
  function flagGroup(fold: boolean): boolean | undefined {
    if (peek() !== '(' || peek(1) !== '?') return undefined;
    const match = /^\(\?([imsU]*)(?:-([imsU]*))?\)/.exec(chars.slice(at, at + 16).join(''));
    if (!match) return undefined;
    at += [...match[0]].length;
    if (match[1]!.includes('i')) return true;
    if (match[2]?.includes('i')) return false;
    return fold;
  }

  function atomAt(fold: boolean): Node {
    const char = peek()!;
    switch (char) {
      case '(':
        return group(fold);
      case '[':
        characterClass();
        return { kind: 'other' };
      case '.':
      case '^':
      case '$':
        at += 1;
        return { kind: 'other' };
      case '\\':
        return escape(fold);
      case '*':
      case '+':
      case '?':
        // A repetition with nothing before it is a syntax error.
        throw new Unknown();
      default:
        at += 1;
        return literal(char, fold);
    }
  }

  function literal(text: string, fold: boolean): Node {
    // A character that has other cases matches them all under (?i).
    return fold && text.toLowerCase() !== text.toUpperCase() ? { kind: 'other' } : { kind: 'char', text };
  }

  function group(fold: boolean): Node {
    at += 1;
    let inner = fold;
    if (peek() === '?') {
      const rest = chars.slice(at, at + 40).join('');
      const named = /^\?P?<[A-Za-z_][A-Za-z0-9_]*>/.exec(rest);
      const flagged = /^\?([imsU]*)(?:-([imsU]*))?:/.exec(rest);
      if (named) at += named[0].length;
      else if (flagged) {
        at += flagged[0].length;
        if (flagged[1]!.includes('i')) inner = true;
        else if (flagged[2]?.includes('i')) inner = false;
      } else throw new Unknown();
    }
    // RE2 refuses deeper nesting; the reading is recursive and stops there too.
    if (++depth > MAX_NESTING) throw new Unknown();
    const node = alternation(inner);
    depth -= 1;
    if (peek() !== ')') throw new Unknown();
    at += 1;
    return node;
  }

  function characterClass(): void {
    at += 1;
    if (peek() === '^') at += 1;
    // A `]` first in the class is the character itself.
    if (peek() === ']') at += 1;
    while (at < chars.length && peek() !== ']') {
      if (peek() === '[' && peek(1) === ':') {
        const end = chars.indexOf(']', at + 2);
        if (end < 0 || chars[end - 1] !== ':') throw new Unknown();
        at = end + 1;
      } else if (peek() === '\\') {
        at += 1;
        skipEscapeBody();
      } else at += 1;
    }
    if (peek() !== ']') throw new Unknown();
    at += 1;
  }

  /** Past the text of an escape after its backslash, inside a class (where only its length matters). */
  function skipEscapeBody(): void {
    const char = peek();
    if (char === undefined) throw new Unknown();
    if ((char === 'x' || char === 'p' || char === 'P') && peek(1) === '{') {
      const end = chars.indexOf('}', at);
      if (end < 0) throw new Unknown();
      at = end + 1;
    } else if (char === 'x') at += 3;
    else if (char === 'p' || char === 'P') at += 2;
    else if (/[0-7]/.test(char)) {
      at += 1;
      while (at < chars.length && /[0-7]/.test(peek()!)) at += 1;
    } else at += 1;
  }

  function escape(fold: boolean): Node {
    at += 1;
    const char = peek();
    if (char === undefined) throw new Unknown();
    if (char === 'Q') {
      // \Q...\E: every character literal.
      at += 1;
      const items: Node[] = [];
      while (at < chars.length && !(peek() === '\\' && peek(1) === 'E')) items.push(literal(chars[at++]!, fold));
      if (at < chars.length) at += 2;
      return items.length === 1 ? items[0]! : { kind: 'concat', items };
    }
    if (char === 'p' || char === 'P') {
      skipEscapeBody();
      return { kind: 'other' };
    }
    if (char === 'x') {
      let hex: string;
      if (peek(1) === '{') {
        const end = chars.indexOf('}', at);
        if (end < 0) throw new Unknown();
        hex = chars.slice(at + 2, end).join('');
        at = end + 1;
      } else {
        hex = chars.slice(at + 1, at + 3).join('');
        if (hex.length !== 2) throw new Unknown();
        at += 3;
      }
      const code = /^[0-9A-Fa-f]{1,8}$/.test(hex) ? Number.parseInt(hex, 16) : NaN;
      if (!(code <= 0x10ffff) || (code >= 0xd800 && code <= 0xdfff)) throw new Unknown();
      return literal(String.fromCodePoint(code), fold);
    }
    at += 1;
    if (CLASS_ESCAPES.has(char)) return { kind: 'other' };
    const control = CONTROL_ESCAPES[char];
    if (control !== undefined) return literal(control, fold);
    if (PUNCTUATION.test(char)) return literal(char, fold);
    // Octal codes, and anything RE2 refuses or this reading does not know.
    throw new Unknown();
  }

  /** The repetition operator here (`*`, `+`, `?`, `{n,m}`), past it and its `?`; undefined when there is none. */
  function repetitionOperator(): { min: number; max: number | undefined } | undefined {
    const char = peek();
    let bounds: { min: number; max: number | undefined } | undefined;
    if (char === '*') bounds = { min: 0, max: undefined };
    else if (char === '+') bounds = { min: 1, max: undefined };
    else if (char === '?') bounds = { min: 0, max: 1 };
    if (bounds !== undefined) at += 1;
    else if (char === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(chars.slice(at, at + 16).join(''));
      // RE2 reads a `{` that starts no repetition as the character itself.
      if (!match) return undefined;
      at += match[0].length;
      const min = Number(match[1]);
      const max = match[2] === undefined ? min : match[3] === '' ? undefined : Number(match[3]);
      if (min > MAX_REPEAT || (max !== undefined && (max > MAX_REPEAT || max < min))) throw new Unknown();
      bounds = { min, max };
    } else return undefined;
    // A non-greedy repetition matches the same strings.
    if (peek() === '?') at += 1;
    return bounds;
  }

  function repetition(atom: Node): Node {
    const bounds = repetitionOperator();
    if (bounds === undefined) return atom;
    // RE2 refuses a repetition of a repetition (`a**`) outside a group.
    if (repetitionOperator() !== undefined) throw new Unknown();
    return { kind: 'repeat', item: atom, ...bounds };
  }

  const tree = alternation(false);
  if (at !== chars.length) throw new Unknown();
  if (repetitionBudget(tree, MAX_REPEAT) === 0) throw new Unknown();
  return tree;
}

/**
 * RE2's check of nested repetitions (parse.cc, RepetitionWalker): MAX_REPEAT divided by each count
 * on the way down (the most, or the least when unbounded), the smallest quotient of any path. At 0,
 * RE2 refuses the pattern ("invalid repetition size"): the expression then runs unfiltered and
 * raises that error, as BigQuery does, where a literal worked out here would answer without it.
 */
function repetitionBudget(node: Node, budget: number): number {
  switch (node.kind) {
    case 'concat':
      return node.items.reduce((least, item) => Math.min(least, repetitionBudget(item, budget)), budget);
    case 'alternate':
      return node.options.reduce((least, option) => Math.min(least, repetitionBudget(option, budget)), budget);
    case 'repeat': {
      const count = node.max ?? node.min;
      return repetitionBudget(node.item, count > 0 ? Math.trunc(budget / count) : budget);
    }
    default:
      return budget;
  }
}

/** What a node says about the text it matches. */
interface Info {
  /** Every string the node matches, when there are few. */
  exact?: string[];
  /** Sets of strings, one of each set in every match (none empty). */
  clauses: string[][];
}

function longest(strings: readonly string[]): number {
  return strings.reduce((most, text) => Math.max(most, text.length), 0);
}

function product(sets: readonly string[][]): string[] | undefined {
  let result = [''];
  for (const set of sets) {
    if (result.length * set.length > MAX_EXACT || longest(result) + longest(set) > MAX_LITERAL_LENGTH) return undefined;
    result = result.flatMap((prefix) => set.map((suffix) => prefix + suffix));
  }
  return [...new Set(result)];
}

/** A usable requirement: few enough strings, none of them empty. */
function clauseOf(strings: readonly string[] | undefined): string[] | undefined {
  if (strings === undefined || strings.length > MAX_LITERALS || strings.some((text) => text === '')) return undefined;
  return [...new Set(strings)];
}

/** Fewer alternatives first, then longer ones: each is cheaper to test and rejects more. */
function better(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return a.length < b.length;
  return Math.min(...a.map((text) => text.length)) > Math.min(...b.map((text) => text.length));
}

function best(clauses: readonly string[][]): string[] | undefined {
  return clauses.reduce<string[] | undefined>((chosen, clause) => (chosen === undefined || better(clause, chosen) ? clause : chosen), undefined);
}

function analyse(node: Node): Info {
  switch (node.kind) {
    case 'char':
      return { exact: [node.text], clauses: [[node.text]] };
    case 'empty':
      return { exact: [''], clauses: [] };
    case 'other':
      return { clauses: [] };
    case 'concat': {
      const infos = node.items.map(analyse);
      const clauses = infos.flatMap((info) => info.clauses);
      // Each run of items of known text is a string the match holds: `ab` in `ab.*c`; so is each
      // run of items of one string each, where the whole run has too many (`xyz` in `(a|b|c|d|e)xyz`).
      const runs = (fits: (info: Info) => boolean) => {
        let run: string[][] = [];
        const flush = () => {
          const clause = clauseOf(product(run));
          if (clause !== undefined) clauses.push(clause);
          run = [];
        };
        for (const info of infos) {
          if (fits(info)) run.push(info.exact!);
          else flush();
        }
        flush();
      };
      runs((info) => info.exact !== undefined);
      runs((info) => info.exact?.length === 1);
      const exact = infos.every((info) => info.exact !== undefined) ? product(infos.map((info) => info.exact!)) : undefined;
      return { exact, clauses };
    }
    case 'alternate': {
      const infos = node.options.map(analyse);
      const exacts = infos.map((info) => info.exact);
      const exact = exacts.every((strings) => strings !== undefined) ? [...new Set(exacts.flat() as string[])] : undefined;
      const options = infos.map((info) => best([...info.clauses, ...(clauseOf(info.exact) ? [clauseOf(info.exact)!] : [])]));
      const union = options.every((clause) => clause !== undefined) ? clauseOf(options.flat() as string[]) : undefined;
      return { exact: exact && exact.length <= MAX_EXACT ? exact : undefined, clauses: union ? [union] : [] };
    }
    case 'repeat': {
      const info = analyse(node.item);
      if (node.min === 0) {
        // `x?` matches nothing or x; `x*` any number of x: only the first has few strings.
        return { exact: node.max === 1 && info.exact ? [...new Set(['', ...info.exact])] : undefined, clauses: [] };
      }
      const exact = node.max === node.min && info.exact ? product(Array.from({ length: node.min }, () => info.exact!)) : undefined;
      return { exact, clauses: [...info.clauses, ...(clauseOf(info.exact) ? [clauseOf(info.exact)!] : [])] };
    }
  }
}

/** The literals `pattern` requires, or undefined when it requires none this reading can tell. */
export function requiredLiterals(pattern: string): RequiredLiterals | undefined {
  let tree: Node;
  try {
    tree = parse(pattern);
  } catch (error) {
    if (error instanceof Unknown) return undefined;
    throw error;
  }
  const info = analyse(tree);
  const exact = clauseOf(info.exact);
  if (exact !== undefined) return { literals: exact, exact: true };
  const clause = best(info.clauses);
  return clause === undefined ? undefined : { literals: clause, exact: false };
}
