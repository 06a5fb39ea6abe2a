/**
 * The DuckDB dialect: BigQuery's meaning in DuckDB's terms. Sources are tables of the same (quoted)
 * name; parameters are `$name`; CURRENT_TIMESTAMP is the execution time, bound once per query.
 *
 * Type mapping (language table): BigQuery TIMESTAMP -> TIMESTAMPTZ (the session runs in UTC, so it
 * is an instant), DATETIME -> TIMESTAMP, INT64 -> BIGINT, FLOAT64 -> DOUBLE, STRING -> VARCHAR.
 *
 * Rewrites, in order: GoogleSQL's name resolution made explicit (SELECT aliases that win over
 * columns, struct fields qualified by their UNNEST alias; DuckDB resolves both otherwise); UNNEST
 * chains as projections; BigQuery's names of anonymous columns; orders BigQuery does not keep, dropped.
 */
import type { Dialect } from '../generator/dialect.js';
import { EXTRACT_PARTS } from '../language.js';
import { nameAnonymousColumns } from '../rewrites/anonymous-columns.js';
import { resolveNames } from '../rewrites/resolve-names.js';
import { unnestAsProjections } from '../rewrites/unnest-projections.js';
import { dropUnorderedSubqueryOrder } from '../rewrites/unordered-subqueries.js';
import type { Columns } from '../shapes.js';

/** Always quotes: source names contain dots (`cloudflare.logs.prod`) and field names come from arbitrary JSON keys. */
export function quoteIdentifier(name: string): string {
  if (name === '' || name.includes('\u0000')) throw new RangeError(`not a usable identifier: ${JSON.stringify(name)}`);
  return `"${name.replaceAll('"', '""')}"`;
}

export function quoteString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/**
 * Names DuckDB reads as its own functions or pseudo-columns when they stand alone, quoted or not
 * (`select user` is DuckDB's user name, `select current_catalog` the database file's name). In
 * BigQuery they are plain names: a column of such a name is written qualified, and one that is no
 * column never reaches DuckDB.
 */
const KEYWORD_NAMES: ReadonlySet<string> = new Set([
  'current_catalog', 'current_date', 'current_role', 'current_schema', 'current_time', 'current_timestamp', 'current_user',
  'localtime', 'localtimestamp', 'rowid', 'session_user', 'user',
]);

/** A literal pattern without a backslash, which needs no ESCAPE. */
const PLAIN_PATTERN = /^'[^'\\]*'$/;

export interface DuckDbDialectOptions {
  /**
   * The structure of each source, which BigQuery's unqualified struct-field names need; without it
   * those names are left to DuckDB.
   */
  sourceColumns?: (source: string) => Columns;
  /** The columns are the tables' own, all of them: names nothing has are refused as BigQuery refuses them. */
  strictNames?: boolean;
}

export function duckDbDialect(sources: readonly string[], options: DuckDbDialectOptions = {}): Dialect {
  const known = new Set(sources);
  return {
    name: 'duckdb',
    quoteIdentifier,
    cteName: quoteIdentifier,
    quoteString,
    parameter: (name) => `$${name}`,
    relation: (source) => (known.has(source) ? quoteIdentifier(source) : undefined),
    rewrites: [
      resolveNames({ sourceColumns: options.sourceColumns, strict: options.strictNames, qualify: KEYWORD_NAMES }),
      unnestAsProjections,
      nameAnonymousColumns,
      dropUnorderedSubqueryOrder,
    ],
    transforms: {
      column: (node, printer) => {
        if (node.table !== undefined || !KEYWORD_NAMES.has(node.name.toLowerCase())) return undefined;
        return printer.refuse(`the name ${node.name} standing alone (DuckDB reads it as its own ${node.name.toUpperCase()}; qualify the column with its table)`, node);
      },
      selectItem: (item, printer) => {
        if (item.kind !== 'star' || item.except.length === 0) return undefined;
        const star = (item.table === undefined ? '' : `${printer.identifier(item.table)}.`) + '*';
        const replace = item.replace.length ? ` REPLACE (${item.replace.map((entry) => `${printer.expr(entry.expr)} AS ${printer.identifier(entry.alias)}`).join(', ')})` : '';
        return `${star} EXCLUDE (${item.except.map(printer.identifier).join(', ')})${replace}`;
      },
      fromItem: (item, printer) => {
        if (item.kind === 'unnest' && item.offsetAlias !== undefined) {
          printer.refuse('UNNEST ... WITH OFFSET here (it is supported right after the table it unnests, joined with CROSS JOIN, a comma or LEFT JOIN ... ON TRUE)', item);
        }
        return undefined;
      },
      binary: (node, printer) => {
        if (node.operator !== 'LIKE' && node.operator !== 'NOT LIKE') return undefined;
        // BigQuery's LIKE treats a backslash as the escape character; DuckDB's has none unless told.
        // A literal pattern without a backslash needs no ESCAPE, and without one DuckDB rewrites
        // LIKE '%x%' as contains() (usage.api-counts' four LIKEs: about a third of the cost).
        const pattern = printer.expr(node.right);
        const escape = PLAIN_PATTERN.test(pattern) ? '' : " ESCAPE '\\'";
        return `(${printer.expr(node.left)} ${node.operator} ${pattern}${escape})`;
      },
      in_unnest: (node, printer) => `(${printer.expr(node.operand)} ${node.not ? 'NOT IN' : 'IN'} (SELECT UNNEST(${printer.expr(node.array)})))`,
      interval: (node, printer) => `(INTERVAL (${printer.expr(node.value)}) ${node.unit.toUpperCase()})`,
      extract: (node, printer) => EXTRACT_PARTS[node.part]?.(printer.expr(node.source)),
      subscript: (node, printer) => {
        const array = printer.expr(node.array);
        const index = printer.expr(node.index);
        // DuckDB lists are 1-based; an index out of range is NULL there, an error in BigQuery's OFFSET.
        if (node.mode === 'OFFSET' || node.mode === 'SAFE_OFFSET') return `${array}[(${index}) + 1]`;
        if (node.mode === 'ORDINAL' || node.mode === 'SAFE_ORDINAL') return `${array}[${index}]`;
        return undefined;
      },
    },
  };
}
