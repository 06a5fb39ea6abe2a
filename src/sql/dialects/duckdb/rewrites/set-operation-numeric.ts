/**
 * A set operation's column that is NUMERIC in one operand and a FLOAT64 literal in another is a
 * NUMERIC column in GoogleSQL: a literal coerces to its column's supertype, so
 * `SELECT NUMERIC '1' UNION ALL SELECT 2.5` is two NUMERICs, the literal taken exactly as written
 * (ZetaSQL's analytic_percentile_cont_numeric builds its 29-digit NUMERIC column so). DuckDB types
 * the literal as a DOUBLE, and DECIMAL with DOUBLE is DOUBLE: every value of the column came back
 * a double. Where an operand's item at a place is NUMERIC by the query's text (a NUMERIC literal,
 * a CAST to NUMERIC, arithmetic of them), each FLOAT64 literal at that place, negated or not, is
 * written as the NUMERIC literal of its text; a value beyond NUMERIC's range is then DuckDB's cast
 * error, as it is BigQuery's. A column of any other type keeps DuckDB's supertype (a DOUBLE
 * operand makes the column DOUBLE either way, as BigQuery's FLOAT64). Sets matching columns by
 * name, and operands with a `*`, are left as written: their places are not in the text.
 */
import { staticType } from '../../../analyse/static-type.js';
import type { Rewrite } from '../../../generator/dialect.js';
import { TYPE_LOOKUP } from '../../../language.js';
import type { Expr, QueryBody, Select } from '../../../parse/tree.js';
import { rewriteBodies } from '../../../parse/walk.js';

/** The selects whose items are the set's columns by place, or undefined where a place is not in the text. */
function operands(body: QueryBody): Select[] | undefined {
  if (body.kind === 'select') return body.items.some((item) => item.kind !== 'item') ? undefined : [body];
  if (body.kind === 'query') return operands(body.body);
  if (body.byName) return undefined;
  const selects: Select[] = [];
  for (const member of body.members) {
    const found = operands(member);
    if (found === undefined) return undefined;
    selects.push(...found);
  }
  return selects;
}

/** A FLOAT64 literal (or its negation) as the NUMERIC literal of the same text; anything else unchanged. */
function asNumeric(expr: Expr): Expr {
  if (expr.kind === 'literal' && expr.type === 'float64') return { ...expr, type: 'numeric' };
  if (expr.kind === 'unary' && expr.operator === '-' && expr.operand.kind === 'literal' && expr.operand.type === 'float64') {
    return { ...expr.operand, type: 'numeric', value: `-${String(expr.operand.value)}` };
  }
  return expr;
}

function coerced(body: QueryBody, numeric: ReadonlySet<number>): QueryBody {
  if (body.kind === 'query') return { ...body, body: coerced(body.body, numeric) };
  if (body.kind === 'set') return { ...body, members: body.members.map((member) => coerced(member, numeric)) };
  return { ...body, items: body.items.map((item, index) => (item.kind === 'item' && numeric.has(index) ? { ...item, expr: asNumeric(item.expr) } : item)) };
}

function numericLiterals(body: QueryBody): QueryBody {
  if (body.kind !== 'set') return body;
  const selects = operands(body);
  if (selects === undefined) return body;
  const numeric = new Set<number>();
  for (const select of selects) {
    select.items.forEach((item, index) => {
      if (item.kind === 'item' && staticType(item.expr, TYPE_LOOKUP) === 'numeric') numeric.add(index);
    });
  }
  return numeric.size === 0 ? body : coerced(body, numeric);
}

export const setOperationNumericLiterals: Rewrite = rewriteBodies(numericLiterals);
