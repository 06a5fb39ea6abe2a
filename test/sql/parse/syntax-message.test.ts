/** How a syntax error reads: where, the token found, what could come there, and a likely typo. */
import { describe, expect, it } from 'vitest';
import { expectedText } from '../../../src/sql/parse/syntax-message.js';
import { refused, statement } from './helpers.js';

const message = (sql: string) => refused(sql).message;

describe('a SQL syntax error', () => {
  it('names the token found (not one character of it), its line and column, and what could come there', () => {
    expect(message('select id\nfrom edge_logs\nwhere timestamp > > 3')).toBe('SQL syntax error at line 3, column 19: found ">", expected an expression');
    expect(message('select id from x limit abc')).toBe('SQL syntax error at line 1, column 24: found "abc", expected a number or a parameter');
    expect(message('select id from x order id')).toBe('SQL syntax error at line 1, column 24: found "id", expected BY');
    expect(refused('select id from x order id').location).toEqual({ line: 1, column: 24 });
  });

  it('reads spaces and comments between tokens as nothing, wherever the grammar goes back over them', () => {
    // grammar/build.mjs keeps `__`'s last answer: a failed alternative and the next one read the same spaces.
    const commented = 'select /* a */ cast( /* b */ x -- c\n as int64) /* d */ as y, -- e\n z /* f */ not /* g */ in (1, 2) # h\n from /* i */ t';
    expect(statement(commented)).toEqual(statement('select cast(x as int64) as y, z not in (1, 2) from t'));
    expect(message('select id /* a */ from /* b */ x -- c\n order /* d */ id')).toBe('SQL syntax error at line 2, column 16: found "id", expected BY');
    expect(message('select id -- a\nfrom x where /* b */ ')).toBe('SQL syntax error at line 2, column 21: found the end of the query, expected an expression');
  });

  it('takes no string for a name and no ALL for a star, as BigQuery takes none', () => {
    expect(message('select 1 as "one"')).toBe('SQL syntax error at line 1, column 13: found "\\"one\\"", expected a name');
    expect(message("select 1 as 'one'")).toBe('SQL syntax error at line 1, column 13: found "\'one\'", expected a name');
    expect(message("with 'c' as (select 1 as a) select a from c")).toBe('SQL syntax error at line 1, column 6: found "\'c\'", expected a name, ":=" or "="');
    expect(message('select x, all from unnest([1]) as x')).toMatch(/^SQL syntax error at line 1, column 15: found "from"/);
  });

  it('says when the query ends too soon, and which quote never closed', () => {
    expect(message('select id from x where')).toBe('SQL syntax error at line 1, column 23: found the end of the query, expected an expression');
    expect(message("select 'abc from x")).toBe("SQL syntax error at line 1, column 19: found the end of the query, expected the closing ' of a string");
    expect(message('select `abc from x')).toBe('SQL syntax error at line 1, column 19: found the end of the query, expected the closing ` of a quoted name');
  });

  it('names the keyword a word before the place is a typo of', () => {
    // `fromm` reads as a column alias, so reading stops at the table after it.
    const typo = message('select id fromm edge_logs');
    expect(typo).toMatch(/^SQL syntax error at line 1, column 17: found "edge_logs", expected ",", .*FROM, .*\(did you mean FROM for "fromm"\?\)$/);
    expect(message('select id from x wher id = 1')).toMatch(/found "id", expected .*\(did you mean WHERE for "wher"\?\)$/);
    expect(message('with a as (select 1) selct * from a')).toBe('SQL syntax error at line 1, column 22: found "selct", expected "," or SELECT (did you mean SELECT for "selct"?)');
    // The first word is a statement's, whatever the grammar took it for.
    expect(message('selec id from x')).toMatch(/found "id", .*\(did you mean SELECT for "selec"\?\)$/);
    // A statement's own first word is no typo of itself.
    expect(message("with 'c' as (select 1) select * from c")).not.toMatch(/did you mean/);
  });
});

describe('what could come there, summarised', () => {
  const literal = (text: string, ignoreCase = false) => ({ type: 'literal' as const, text, ignoreCase });
  const klass = (parts: (string | [string, string])[], inverted = false) => ({ type: 'class' as const, parts, inverted });

  it('leaves out layout, counts what is past the eighth item, and names clauses by their two words', () => {
    const expected = [klass([' ', '\t', '\n']), literal('/*'), literal('--'), literal(','), ...['FROM', 'WHERE', 'GROUP', 'HAVING', 'QUALIFY', 'WINDOW', 'ORDER', 'LIMIT', 'UNION'].map((word) => literal(word, true)), { type: 'end' as const }];
    expect(expectedText(expected).text).toBe('",", FROM, WHERE, GROUP BY, HAVING, QUALIFY, WINDOW, ORDER BY, … (3 more)');
  });

  it('sums up the starts of an expression, keeping the words that follow one', () => {
    const expected = [klass([['0', '9']]), literal("'"), klass([['A', 'Z'], ['a', 'z'], '_']), literal('CAST', true), literal('COUNT', true), literal('('), literal('AND', true), literal(')')];
    expect(expectedText(expected).text).toBe('an expression, ")" or AND');
  });
});
