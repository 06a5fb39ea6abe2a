/**
 * Navigation and numbering functions (OVER required): FIRST_VALUE, LAST_VALUE and NTH_VALUE with
 * IGNORE or RESPECT NULLS, CUME_DIST, PERCENT_RANK, NTILE of a positive constant, and
 * PERCENTILE_DISC, which skips NULLs (RESPECT NULLS, which counts them, is refused).
 */
import { notNumeric } from './arguments.js';
import { analytic, same, type CallContext, type FunctionSpec, type Render } from './call.js';

const NULLS = { nulls: true } as const;

function navigation(duckName: string): Render {
  return (call) => `${duckName}(${call.args.join(', ')}${call.ignoreNulls ? ' IGNORE NULLS' : ''})`;
}

/** A constant positive count (NTILE's buckets, NTH_VALUE's n): a literal, checked here. */
function positiveConstant(call: CallContext, index: number, what: string): string {
  const node = call.argNodes[index];
  if (node?.kind !== 'literal' || node.type !== 'int64') return call.refuse(`${call.name.toUpperCase()} with ${what} that is not an integer literal`);
  if (Number(node.value) < 1) return call.invalid(`${call.name.toUpperCase()}'s ${what} must be positive, got ${String(node.value)}`);
  return call.args[index]!;
}

function percentile(duckName: string): Render {
  return (call) => {
    if (call.ignoreNulls === false) return call.refuse(`${call.name.toUpperCase()} with RESPECT NULLS`);
    // BigQuery interpolates NUMERICs exactly, into a NUMERIC; DuckDB's quantile_cont goes through
    // doubles (the 29-digit values of ZetaSQL's analytic_percentile_cont_numeric came out rounded).
    // PERCENTILE_DISC picks one of the values, exact either way.
    const value = duckName === 'quantile_cont' ? notNumeric(call, 0, call.args[0]!, 'CAST it to FLOAT64 for a FLOAT64 percentile') : call.args[0];
    return `${duckName}(${value}, ${call.args[1]})`;
  };
}

export const WINDOW_FUNCTIONS: ReadonlyMap<string, FunctionSpec> = new Map<string, FunctionSpec>([
  ['first_value', analytic('the value at the first row of the window frame (IGNORE NULLS: the first non-NULL)', [1, 1], navigation('first_value'), { sameAs: 0 }, NULLS)],
  ['last_value', analytic('the value at the last row of the window frame (IGNORE NULLS: the last non-NULL)', [1, 1], navigation('last_value'), { sameAs: 0 }, NULLS)],
  ['nth_value', analytic('the value at the n-th row of the window frame, NULL if there is none', [2, 2], (call) => navigation('nth_value')({ ...call, args: [call.args[0]!, positiveConstant(call, 1, 'the row number')] }), { sameAs: 0 }, NULLS)],
  ['cume_dist', analytic('the share of rows ordered at or before the current one', [0, 0], same('cume_dist'), 'float64')],
  ['percent_rank', analytic('(rank - 1) / (rows - 1), 0 for one row', [0, 0], same('percent_rank'), 'float64')],
  ['ntile', analytic('the 1-based bucket of the row among n buckets of the ordered rows', [1, 1], (call) => `ntile(${positiveConstant(call, 0, 'the number of buckets')})`, 'int64')],
  ['percentile_cont', analytic('the percentile (0 to 1) of the non-NULL values in the window, interpolated', [2, 2], percentile('quantile_cont'), 'float64', NULLS)],
  ['percentile_disc', analytic('the first value of the non-NULL values in the window at or past the percentile (0 to 1)', [2, 2], percentile('quantile_disc'), { sameAs: 0 }, NULLS)],
]);
