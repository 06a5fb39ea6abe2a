/**
 * A syntax error in words: the token where reading stopped and what could have come there, from
 * the grammar's own list of expectations (peggy's `expected`), summarised: the dozens of ways an
 * expression can start are "an expression", layout (spaces, comments) is left out, and a word
 * just before that is one letter off an expected keyword is named as the likely typo.
 */
import { closestSpelling } from '../../config/spelling.js';

/** One of peggy's expectations at the failing position. */
export interface Expectation {
  type: 'literal' | 'class' | 'any' | 'end' | 'other';
  text?: string;
  ignoreCase?: boolean;
  parts?: (string | [string, string])[];
  inverted?: boolean;
  description?: string;
}

/** Listed at most; the rest are counted. */
const SHOWN = 8;

/** Keywords that follow an expression rather than start one: still listed when "an expression" stands for the others. */
const FOLLOWING_WORDS = new Set([
  'FROM', 'WHERE', 'GROUP', 'HAVING', 'QUALIFY', 'WINDOW', 'ORDER', 'LIMIT', 'OFFSET', 'UNION', 'INTERSECT', 'EXCEPT',
  'AS', 'ON', 'USING', 'JOIN', 'INNER', 'LEFT', 'RIGHT', 'FULL', 'CROSS', 'AND', 'OR', 'THEN', 'ELSE', 'END', 'WHEN',
  'BY', 'ASC', 'DESC', 'IN', 'IS', 'LIKE', 'BETWEEN', 'OVER',
]);
/** The keyword pairs a clause is known by. */
const CLAUSE_NAMES: Record<string, string> = { GROUP: 'GROUP BY', ORDER: 'ORDER BY', PARTITION: 'PARTITION BY' };
/** Characters an expression may start with besides names, numbers and strings. */
const EXPRESSION_STARTS = new Set(['(', '[', '!', '+', '-', '~']);
const LAYOUT = new Set(['/*', '--', '#']);

type Kind = 'name' | 'number' | 'string' | 'parameter' | 'sign' | 'layout' | undefined;

function inClass(parts: NonNullable<Expectation['parts']>, char: string): boolean {
  return parts.some((part) => (typeof part === 'string' ? part === char : part[0] <= char && char <= part[1]));
}

function classKind(expectation: Expectation): Kind {
  const parts = expectation.parts ?? [];
  if (expectation.inverted) return undefined;
  if (inClass(parts, ' ') || inClass(parts, '\n')) return 'layout';
  if (inClass(parts, '5')) return 'number';
  if (inClass(parts, 'q') || inClass(parts, 'Q')) return 'name';
  if (inClass(parts, '@')) return 'parameter';
  if (inClass(parts, '+') || inClass(parts, '-')) return 'sign';
  return undefined;
}

const QUOTES = new Set(["'", '"', "'''", '"""', '`']);

function literalKind(text: string, insideQuotes: boolean): Kind {
  if (LAYOUT.has(text)) return 'layout';
  // Inside quotes, a quote is the one that closes them: listed as itself.
  if (insideQuotes) return undefined;
  if (text === '`') return 'name';
  if (QUOTES.has(text)) return 'string';
  if (/^\d/.test(text)) return 'number';
  return undefined;
}

const KIND_TEXT: Record<Exclude<Kind, undefined | 'layout' | 'sign'>, string> = { name: 'a name', number: 'a number', string: 'a string', parameter: 'a parameter' };

/** What could have come, in words: `an expression, FROM or ","`. */
export function expectedText(expected: readonly Expectation[]): { text: string; keywords: string[] } {
  const kinds = new Set<Kind>();
  const keywords: string[] = [];
  const symbols: string[] = [];
  let end = false;
  // Any character but a quote: reading is inside a string (or a quoted name) that never closes.
  const insideQuotes = expected.some((expectation) => expectation.type === 'class' && expectation.inverted);
  for (const expectation of expected) {
    if (expectation.type === 'end') end = true;
    else if (expectation.type === 'class') kinds.add(classKind(expectation));
    else if (expectation.type === 'other' && expectation.description) symbols.push(expectation.description);
    else if (expectation.type === 'literal' && expectation.text !== undefined) {
      const kind = literalKind(expectation.text, insideQuotes);
      if (kind) kinds.add(kind);
      // One letter before a quote (B'..', R'..') is a kind of string, not a word to list.
      else if (/^[A-Za-z_]{2,}$/.test(expectation.text)) keywords.push(expectation.text.toUpperCase());
      else if (!/^[A-Za-z]$/.test(expectation.text)) symbols.push(expectation.text);
    }
  }
  if (insideQuotes) {
    const quote = symbols.find((symbol) => QUOTES.has(symbol)) ?? (kinds.has('name') ? '`' : "'");
    return { text: `the closing ${quote} of ${quote === '`' ? 'a quoted name' : 'a string'}`, keywords: [] };
  }
  const expression = kinds.has('number') && kinds.has('string');
  const phrases = expression ? ['an expression'] : (['name', 'number', 'string', 'parameter'] as const).filter((kind) => kinds.has(kind)).map((kind) => KIND_TEXT[kind]);
  const words = unique(keywords.filter((word) => !expression || FOLLOWING_WORDS.has(word)).map((word) => CLAUSE_NAMES[word] ?? word));
  const marks = unique(symbols.filter((symbol) => !expression || !EXPRESSION_STARTS.has(symbol))).map((symbol) => JSON.stringify(symbol));
  const items = [...phrases, ...marks, ...words, ...(end ? ['the end of the query'] : [])];
  return { text: listText(items), keywords: unique(keywords) };
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}

function listText(items: readonly string[]): string {
  if (items.length === 0) return 'something else';
  if (items.length > SHOWN) return `${items.slice(0, SHOWN).join(', ')}, … (${items.length - SHOWN} more)`;
  return items.length === 1 ? items[0]! : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

const TOKEN = /^(?:[A-Za-z_][A-Za-z0-9_]*|`[^`\n]*`?|\d+(?:\.\d+)?|'[^'\n]*'?|"[^"\n]*"?|[<>=!|&+\-*/%~^]+|\S)/;
const WORD_BEFORE = /([A-Za-z_][A-Za-z0-9_]*)\s*$/;
const FIRST_WORD = /^[A-Za-z_][A-Za-z0-9_]*/;
const STATEMENT_WORDS = ['SELECT', 'WITH'];

/** The token at `offset` of `text`, quoted, or "the end of the query". */
export function foundText(text: string, offset: number): string {
  const token = TOKEN.exec(text.slice(offset))?.[0];
  if (token === undefined) return 'the end of the query';
  return JSON.stringify(token.length > 40 ? `${token.slice(0, 40)}…` : token);
}

/**
 * The whole message: `SQL syntax error at line 1, column 17: found "edge_logs", expected ",",
 * FROM, ... (did you mean FROM for "fromm"?)`.
 */
export function syntaxErrorText(text: string, at: { offset: number; line: number; column: number }, expected: readonly Expectation[]): string {
  const { text: wanted, keywords } = expectedText(expected);
  const found = foundText(text, at.offset);
  // A mistyped keyword reads as a name (`fromm` as a column alias), so reading stops at the word after it.
  const before = text.slice(0, at.offset);
  const typo = [TOKEN.exec(text.slice(at.offset))?.[0], WORD_BEFORE.exec(before)?.[1]]
    .filter((word): word is string => word !== undefined && /^[A-Za-z_]\w*$/.test(word) && !keywords.includes(word.toUpperCase()))
    .map((word) => {
      // The first word can only be a statement's, whatever the grammar read it as.
      const first = FIRST_WORD.exec(text)?.[0] === word && !before.slice(0, before.lastIndexOf(word)).trim();
      return { word, keyword: closestSpelling(word, first ? [...keywords, ...STATEMENT_WORDS] : keywords) };
    })
    // A word that is the keyword already (`with 'c' as`) is no typo of it.
    .find((candidate) => candidate.keyword !== undefined && candidate.keyword.toUpperCase() !== candidate.word.toUpperCase());
  const hint = typo ? ` (did you mean ${CLAUSE_NAMES[typo.keyword!] ?? typo.keyword} for "${typo.word}"?)` : '';
  return `SQL syntax error at line ${at.line}, column ${at.column}: found ${found}, expected ${wanted}${hint}`;
}
