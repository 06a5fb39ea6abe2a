/**
 * `REGEXP_CONTAINS(x, pattern)` tested with substring searches before the regular expression: every
 * match contains one of the literals the pattern requires (regex-literals.ts), so
 * `(contains(x, l1) OR ... ) AND regexp_matches(x, pattern)` keeps exactly the same rows, NULLs
 * included, and runs the expression only on the rows that hold a literal. A pattern that matches
 * exactly the texts holding one of them (`proj|zz17`) needs no regular expression at all.
 *
 * A literal pattern is read here. A pattern that is a parameter is known only per request: the
 * literals and whether they are exact become parameters the engine works out from it
 * (derived-parameters.ts), up to MAX_LITERALS of them; unused ones are NULL (and their search
 * FALSE), and with nothing required the first is '' (contained in any text). DuckDB plans with the
 * bound values, so the searches a request does not use cost nothing.
 */
import type { Rewrite } from '../../../generator/dialect.js';
import { MAX_LITERALS, requiredLiterals } from '../../../analyse/regex-literals.js';
import type { Call, Expr, Param, Query, Select } from '../../../parse/tree.js';
import { mapExprChildren, mapQueryParts, mapSelectChildren, type ChildMap } from '../../../parse/walk.js';

function or(terms: readonly Expr[]): Expr {
  return terms.reduce((left, right) => ({ kind: 'binary', operator: 'OR', left, right }));
}

function and(left: Expr, right: Expr): Expr {
  return { kind: 'binary', operator: 'AND', left, right };
}

function contains(subject: Expr, literal: Expr): Expr {
  return { kind: 'native', name: 'contains', args: [subject, literal] };
}

/** The name of a derived parameter of `param`: a `__cannery_` name, like the execution time's. */
function derivedName(param: string, suffix: string): string {
  return `__cannery_re_${param}_${suffix}`;
}

function prefiltered(call: Call): Expr {
  const [subject, pattern] = call.args as [Expr, Expr];
  if (pattern.kind === 'literal' && pattern.type === 'string' && typeof pattern.value === 'string') {
    const required = requiredLiterals(pattern.value);
    if (required === undefined) return call;
    const searches = or(required.literals.map((literal) => contains(subject, { kind: 'literal', type: 'string', value: literal })));
    return required.exact ? searches : and(searches, call);
  }
  if (pattern.kind !== 'param' || pattern.derived !== undefined) return call;
  const search = (index: number): Expr => {
    const param: Param = { kind: 'param', name: derivedName(pattern.name, String(index)), derived: { kind: 'required_literal', of: pattern.name, index } };
    // Typed, as a NULL would not tell DuckDB which `contains` it is.
    const literal: Expr = { kind: 'cast', safe: false, operand: param, type: { name: 'STRING' } };
    if (index === 0) return contains(subject, literal);
    // An unused literal (NULL) is FALSE, not NULL: the result is the expression's, in a SELECT too.
    return and({ kind: 'binary', operator: 'IS NOT', left: literal, right: { kind: 'literal', type: 'null', value: null } }, contains(subject, literal));
  };
  const exact: Expr = { kind: 'cast', safe: false, type: { name: 'BOOL' }, operand: { kind: 'param', name: derivedName(pattern.name, 'exact'), derived: { kind: 'literals_exact', of: pattern.name } } };
  const searches = or(Array.from({ length: MAX_LITERALS }, (_, index) => search(index)));
  return and(searches, { kind: 'binary', operator: 'OR', left: exact, right: call });
}

const map: ChildMap & { select(select: Select): Select } = {
  expr: (expr: Expr): Expr => {
    const mapped = mapExprChildren(expr, map);
    if (mapped.kind !== 'call' || mapped.name !== 'regexp_contains' || mapped.args.length !== 2 || mapped.over) return mapped;
    return prefiltered(mapped);
  },
  query: (query: Query): Query => mapQueryParts(query, map),
  select: (select: Select): Select => mapSelectChildren(select, map),
};

export const prefilterRegularExpressions: Rewrite = (query) => mapQueryParts(query, map);
