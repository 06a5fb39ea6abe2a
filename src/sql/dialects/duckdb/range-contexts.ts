/**
 * A query that holds a RANGE (functions/ranges.ts: a STRUCT of its bounds on DuckDB, unbounded
 * ones infinite) is refused where something would read the STRUCT's text or fields rather than
 * the range: BigQuery writes a range as `[2020-01-01, UNBOUNDED)` in a CAST to STRING, FORMAT or
 * JSON, and has no fields of one; DuckDB would write `{'start': ..., 'end': infinity}` or read a
 * bound. The walk does not follow the range through columns, so any such reader in the query is
 * refused once one RANGE is there, never answered in DuckDB's words.
 */
import type { Rewrite } from '../../generator/dialect.js';
import { UnsupportedConstruct } from '../../generator/unsupported.js';
import { isRangeExpr } from '../../functions/ranges.js';
import type { Expr } from '../../parse/tree.js';
import { walkTree, type TreeNode } from '../../parse/walk.js';

/** Calls that write or take apart any value they are given, a STRUCT by its fields. */
const TEXT_READERS: ReadonlySet<string> = new Set(['to_json_string', 'to_json', 'format', 'concat', 'string', 'json_object', 'json_array', 'array_to_string', 'json_set', 'json_array_append', 'json_array_insert']);

/** Cast targets whose value of a STRUCT would be DuckDB's text of it. */
const TEXT_TYPES: ReadonlySet<string> = new Set(['STRING', 'BYTES', 'JSON']);

function reader(node: Expr): string | undefined {
  // CAST('[a, b)' AS RANGE<DATE>) is read as the literal (parse/range-literal.ts); DuckDB's cast of
  // any other value (SAFE_CAST of text, a column) to the STRUCT is no reading of BigQuery's text.
  if (node.kind === 'cast' && node.type.name === 'RANGE' && !(node.operand.kind === 'literal' && node.operand.type === 'null') && !isRangeExpr(node.operand)) {
    return `${node.safe ? 'SAFE_CAST' : 'CAST'} to RANGE of a value other than NULL, a RANGE or (CAST) a string literal`;
  }
  if (node.kind === 'call' && TEXT_READERS.has(node.name)) return `${node.name.toUpperCase()}(...)`;
  if (node.kind === 'cast' && TEXT_TYPES.has(node.type.name)) return `CAST(... AS ${node.type.name})`;
  if (node.kind === 'binary' && node.operator === '||') return '||';
  if (node.kind === 'field') return `a field access (.${node.name})`;
  if (node.kind === 'column' && node.fields.length > 0) return `a field access (.${node.fields.join('.')})`;
  return undefined;
}

export const rangeContexts: Rewrite = (query) => {
  let holds = false;
  walkTree(query, (node) => {
    if (!holds && 'kind' in node && isRangeExpr(node as Expr)) holds = true;
  });
  if (!holds) return query;
  walkTree(query, (node) => {
    const what = reader(node as Expr);
    if (what !== undefined) {
      throw new UnsupportedConstruct(`${what} in a query that holds a RANGE (the embedded engine holds a RANGE as a STRUCT of its bounds, whose text and fields are not BigQuery's)`, 'duckdb', (node as Expr).loc);
    }
  });
  return query;
};
