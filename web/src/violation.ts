/**
 * Where in the SQL a `sandbox_violation` (or a refused `sql`) is: at "line L, column C" when the
 * message gives it (a syntax error, SQL the translator does not support), else at the first
 * place the name it quotes appears (a table, a function, a parameter, a CTE), else at the start.
 */
export interface Span {
  from: number;
  to: number;
}

export function violationSpan(message: string, sql: string): Span {
  const at = /\bline (\d+), column (\d+)\b/.exec(message);
  if (at) {
    const lines = sql.split('\n');
    const line = Math.min(Number(at[1]), lines.length);
    const start = lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0);
    const from = Math.min(start + Number(at[2]) - 1, sql.length);
    return { from, to: wordEnd(sql, from) };
  }
  for (const [pattern, find] of NAMED) {
    const name = pattern.exec(message)?.[1];
    const found = name === undefined ? undefined : find(name).exec(sql);
    if (found) return { from: found.index, to: found.index + found[0].length };
  }
  return { from: 0, to: wordEnd(sql, 0) };
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Message shapes of src/sql/sandbox/rules.ts, and how the name they quote is written in SQL. */
const NAMED: [RegExp, (name: string) => RegExp][] = [
  [/table `([^`]+)`/, (name) => new RegExp(`\`${escape(name)}\`|\\b${escape(name)}\\b`, 'i')],
  [/(?:function|aggregate|table function) ([\w.]+)/, (name) => new RegExp(`\\b${escape(name)}(?=\\s*\\()`, 'i')],
  [/@(\w+) is not a parameter/, (name) => new RegExp(`@${escape(name)}\\b`)],
  [/CTE "([^"]+)"/, (name) => new RegExp(`\\b${escape(name)}\\b`, 'i')],
  [/\b(DELETE|INSERT|UPDATE|MERGE|CREATE|DROP|ALTER|ATTACH|COPY|PRAGMA|SET|CALL|INSTALL|LOAD) is not allowed/, (name) => new RegExp(`\\b${name}\\b`, 'i')],
];

/** The end of the word at `from`, or one character on when none starts there. */
function wordEnd(sql: string, from: number): number {
  const word = /^[\w@`.]+/.exec(sql.slice(from));
  return Math.min(sql.length, from + (word ? word[0].length : 1));
}
