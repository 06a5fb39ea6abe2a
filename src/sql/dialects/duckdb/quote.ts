/** Quoting for DuckDB SQL text: the one place identifiers and strings are written. */

/** Always quotes: source names contain dots (`cloudflare.logs.prod`) and field names come from arbitrary JSON keys. */
export function quoteIdentifier(name: string): string {
  if (name === '' || name.includes('\u0000')) throw new RangeError(`not a usable identifier: ${JSON.stringify(name)}`);
  return `"${name.replaceAll('"', '""')}"`;
}

/** A DuckDB string literal. */
export function quoteString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
