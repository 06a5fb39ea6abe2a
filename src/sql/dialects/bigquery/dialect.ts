/**
 * The BigQuery dialect: the endpoint's own SQL, written back with sources mapped to their tables.
 * Nothing needs rewriting: the tree is BigQuery's. CURRENT_TIMESTAMP stays native (BigQuery fixes
 * it per query), so no execution-time parameter is bound.
 *
 * Not node-sql-parser's `sqlify`: it does not round-trip faithfully (it drops the backticks of
 * `t.\`from\``, writes "x'y" as 'x'y'), and the text BigQuery runs must mean exactly what was
 * checked, sandbox SQL included.
 */
import type { Dialect, TablePath } from '../../generator/dialect.js';
import { quoteIdentifier, quoteString } from './quote.js';
import { tablePathSql } from './tables.js';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function bigQueryDialect(tables: ReadonlyMap<string, TablePath>): Dialect {
  return {
    name: 'bigquery',
    settings: { name: 'bigquery', tables: [...tables] },
    quoteIdentifier,
    // A CTE is named as written where it is defined; it is always quoted where it is read.
    cteName: (name) => (IDENTIFIER.test(name) ? name : quoteIdentifier(name)),
    quoteString,
    parameter: (name) => `@${name}`,
    relation: (source) => {
      const path = tables.get(source);
      return path && tablePathSql(path);
    },
    rewrites: [],
    transforms: {
      param: (node, printer) => (IDENTIFIER.test(node.name) ? undefined : printer.refuse(`parameter name @${node.name}`, node)),
    },
  };
}
