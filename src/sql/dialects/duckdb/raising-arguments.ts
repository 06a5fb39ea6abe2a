/**
 * ERROR(...) as an argument. Its rendering is a NULL that raises when evaluated, of DuckDB's NULL
 * type, and DuckDB binds a function or operator given an argument of that type to a constant NULL
 * without evaluating the argument: `UPPER(ERROR('x'))`, `1 + ERROR('x')`, `FORMAT(ERROR('x'), 1)`
 * and `SAFE.ERROR(ERROR('x'))` answered NULL where BigQuery raises (ZetaSQL's
 * format_with_temlpate_as_error_function, safe_error_fn_with_error). A scalar function or operator
 * evaluates every argument, so one with an argument that always raises always raises: it is written
 * as that argument. Functions that choose which argument to evaluate (IF, COALESCE, ...), AND and OR,
 * aggregates (over no rows nothing is evaluated) and window functions are left as they are.
 */
import type { Printer } from '../../generator/dialect.js';
import { resolveFunction } from '../../language.js';
import type { Binary, Call, Expr, Unary } from '../../parse/tree.js';

const CHOOSING = new Set(['if', 'ifnull', 'coalesce', 'nullif', 'iferror', 'iserror', 'nulliferror']);

/** The ERROR call that evaluating `node` always raises, if there is one. */
function raisingCall(node: Expr): Call | undefined {
  switch (node.kind) {
    case 'call': {
      if (node.name === 'error') return node;
      const resolved = resolveFunction(node.name);
      if (resolved?.spec.kind !== 'scalar' || CHOOSING.has(resolved.name) || node.over !== undefined) return undefined;
      return firstRaising([...node.args, ...(node.named ?? []).map((argument) => argument.value)]);
    }
    case 'binary':
      return node.operator === 'AND' || node.operator === 'OR' ? undefined : firstRaising([node.left, node.right]);
    case 'unary':
      return raisingCall(node.operand);
    default:
      return undefined;
  }
}

function firstRaising(nodes: readonly Expr[]): Call | undefined {
  for (const node of nodes) {
    const found = raisingCall(node);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** `node` written as the ERROR call one of its arguments always raises, or undefined. */
export function raisingArgument(node: Call | Binary | Unary, printer: Printer): string | undefined {
  if (node.kind === 'call' && node.name === 'error') return undefined;
  const found = raisingCall(node);
  return found === undefined ? undefined : printer.expr(found);
}
