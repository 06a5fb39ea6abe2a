/**
 * The DuckDB dialect: BigQuery's meaning in DuckDB's terms. Sources are tables of the same (quoted)
 * name; parameters are `$name`; CURRENT_TIMESTAMP is the execution time, bound once per query.
 *
 * Type mapping (language table): BigQuery TIMESTAMP -> TIMESTAMPTZ (the session runs in UTC, so it
 * is an instant), DATETIME -> TIMESTAMP, INT64 -> BIGINT, FLOAT64 -> DOUBLE, STRING -> VARCHAR.
 *
 * Rewrites, in order: `SELECT *` over `JOIN ... USING` in BigQuery's column order; GoogleSQL's
 * name resolution made explicit (SELECT aliases that win over
 * columns, struct fields qualified by their UNNEST alias; DuckDB resolves both otherwise); ROLLUP,
 * CUBE and GROUPING SETS without ordinals (and refused where DuckDB would group otherwise); SELECT
 * AS STRUCT | VALUE in expression subqueries as plain SELECTs of one value; repeated
 * records stored as one STRUCT read as such, and written back as arrays where their values leave;
 * UNNEST chains as projections; aggregates with HAVING MAX | MIN over the rows they keep, in a
 * scalar subquery; BigQuery's names of anonymous columns; orders BigQuery does not
 * keep, dropped; REGEXP_CONTAINS tested with substring searches first; conditions on a STRUCT
 * column's fields kept out of the table scan.
 */
import { duckZone } from './time-zones.js';
import type { Dialect, DuckDbDialectSettings, Printer } from '../../generator/dialect.js';
import { EXTRACT_PARTS, extractKey, TYPE_LOOKUP } from '../../language.js';
import { staticType } from '../../analyse/static-type.js';
import type { Expr } from '../../parse/tree.js';
import { raisingArgument } from './raising-arguments.js';
import { isComparison, nanBetween, nanComparison, nanIn, nanOrderKey } from './nan.js';
import { nameAnonymousColumns } from './rewrites/anonymous-columns.js';
import { prefilterRegularExpressions } from './rewrites/regex-prefilter.js';
import { groupingSetsForDuckDb } from './rewrites/grouping-sets.js';
import { havingExtremeForDuckDb } from './rewrites/having-extreme.js';
import { resolveNames } from './rewrites/resolve-names.js';
import { selectAsForDuckDb } from './rewrites/select-as.js';
import { setOperationStructNames } from './rewrites/set-operation-structs.js';
import { setsByName } from './rewrites/set-by-name.js';
import { boundTopRows } from './rewrites/top-n-bound.js';
import { readStoredRecords } from './rewrites/stored-records.js';
import { recordFiltersAboveScan } from './rewrites/record-filters.js';
import { unnestAsProjections } from './rewrites/unnest-projections.js';
import { usingColumnsFirst } from './rewrites/using-columns.js';
import { dropUnorderedSubqueryOrder } from './rewrites/unordered-subqueries.js';
import type { Columns } from '../../analyse/shapes.js';
import { columnsData, columnsLookup } from '../../analyse/shape-data.js';
import { quoteIdentifier, quoteString } from './quote.js';
import { isTimeText } from './time-formats.js';
import { namedStructElements } from './struct-arrays.js';
import { structCase, structCast, structDistinct, structEquality, structInUnnest, structNullif, structShape } from './struct-equality.js';
import { typedColumns } from './rewrites/typed-columns.js';
import { setOperationNumericLiterals } from './rewrites/set-operation-numeric.js';
import { bignumericBetween, bignumericBinary, bignumericCall, bignumericCase, bignumericCast, bignumericContexts, bignumericIn, bignumericLiteral, bignumericNegation } from './bignumeric.js';
import { computedOnce, raise, repeatable } from './semantics.js';
import { likeSql, quantifiedLike } from './quantified-like.js';
import { rangeContexts } from './range-contexts.js';
import { canonicalJson, InvalidJson } from '../../functions/json-value.js';
import { intervalInRange } from '../../functions/overflow.js';
import { InvalidQuery } from '../../parse/errors.js';
import type { Literal } from '../../parse/tree.js';

function jsonLiteralText(text: string, node: Literal): string {
  try {
    return canonicalJson(text);
  } catch (error) {
    if (error instanceof InvalidJson) throw new InvalidQuery(`Invalid JSON literal: ${error.message}`, node.loc);
    throw error;
  }
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

/** What BigQuery refuses to build, and so DuckDB is not asked to. */
const NESTED_ARRAY = 'an ARRAY of ARRAYs (BigQuery has no nested arrays: put the inner ARRAY in a STRUCT)';

/** Comparisons whose operands may be STRUCTs, which GoogleSQL compares otherwise than DuckDB (struct-equality.ts). */
const STRUCT_COMPARISONS: ReadonlySet<string> = new Set(['=', '!=', '<>', '<', '>', '<=', '>=']);


export interface DuckDbDialectOptions {
  /**
   * The structure of each source's table and how its records are stored (from the table's
   * description, or as a new table stores them), which BigQuery's unqualified struct-field names
   * and the stored records need; without it names are left to DuckDB and records read as lists.
   */
  sourceColumns?: (source: string) => Columns;
  /** The columns are the tables' own, all of them: names nothing has are refused as BigQuery refuses them. */
  strictNames?: boolean;
}

function typeOf(expr: Expr) {
  return staticType(expr, TYPE_LOOKUP);
}

/**
 * Whether a comparison's operands include a FLOAT64 by the query's text, so that it is written
 * NaN-aware (nan.ts): asked of the trees first, since each operand's text is written once only
 * (written for nothing, a long IN list or nested comparisons would be written again and again).
 */
function floats(...nodes: Expr[]): boolean {
  return nodes.some((node) => typeOf(node) === 'float64');
}

/** An operand of a NaN-aware comparison (nan.ts): its text and its node, whose type decides. */
function operand(node: Expr, printer: Printer) {
  return { sql: printer.expr(node), node };
}

export function duckDbDialect(sources: readonly string[], options: DuckDbDialectOptions = {}): Dialect {
  const known = new Set(sources);
  const settings: DuckDbDialectSettings = { name: 'duckdb', sources: [...sources], columns: columnsData(sources, options.sourceColumns), strictNames: options.strictNames === true };
  // Name resolution reads the columns back from the settings, so the dialect is exactly what they describe.
  const sourceColumns = options.sourceColumns && columnsLookup(settings.columns);
  return {
    name: 'duckdb',
    settings,
    quoteIdentifier,
    cteName: quoteIdentifier,
    quoteString,
    parameter: (name) => `$${name}`,
    relation: (source) => (known.has(source) ? quoteIdentifier(source) : undefined),
    rewrites: [
      // Before any pass changes the tree: it refuses a BIGNUMERIC where the query's text places one.
      bignumericContexts,
      rangeContexts,
      // First to change it: the passes after it read set operations by place only.
      setsByName(sourceColumns),
      // Before the columns are typed: a NUMERIC column's FLOAT64 literals become NUMERICs, so that
      // the column is typed NUMERIC (ordered as one, not through doubles).
      setOperationNumericLiterals,
      // Before names are resolved: it follows the query's own scopes, as BigQuery reads them.
      typedColumns(sourceColumns),
      usingColumnsFirst,
      resolveNames({ sourceColumns, strict: settings.strictNames, qualify: KEYWORD_NAMES }),
      groupingSetsForDuckDb,
      selectAsForDuckDb,
      // Before the stored records are read: the bound's copy of FROM and WHERE is read the same way.
      boundTopRows(sourceColumns),
      readStoredRecords(sourceColumns),
      unnestAsProjections,
      havingExtremeForDuckDb,
      nameAnonymousColumns,
      setOperationStructNames,
      dropUnorderedSubqueryOrder,
      prefilterRegularExpressions,
      // Last: it moves whole WHERE conditions, the prefilter's searches with them.
      recordFiltersAboveScan(sourceColumns),
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
      binary: (node, printer) => {
        const raising = raisingArgument(node, printer);
        if (raising !== undefined) return raising;
        const bignumeric = bignumericBinary(node, printer);
        if (bignumeric !== undefined) return bignumeric;
        if (node.operator === 'IS DISTINCT FROM' || node.operator === 'IS NOT DISTINCT FROM') {
          const shape = structShape(node.left) ?? structShape(node.right);
          if (shape !== undefined) {
            const distinct = structDistinct(printer.expr(node.left), printer.expr(node.right), shape, (what) => printer.refuse(what, node));
            return node.operator === 'IS DISTINCT FROM' ? distinct : `(NOT ${distinct})`;
          }
        }
        if (STRUCT_COMPARISONS.has(node.operator)) {
          const shape = structShape(node.left) ?? structShape(node.right);
          if (shape !== undefined) {
            if (node.operator !== '=' && node.operator !== '!=' && node.operator !== '<>') {
              return printer.refuse(`${node.operator} between STRUCTs (GoogleSQL compares STRUCTs for equality only)`, node);
            }
            const equal = structEquality(printer.expr(node.left), printer.expr(node.right), shape, (what) => printer.refuse(what, node));
            return node.operator === '=' ? equal : `(NOT ${equal})`;
          }
        }
        if (isComparison(node.operator)) return floats(node.left, node.right) ? nanComparison(node.operator, operand(node.left, printer), operand(node.right, printer), typeOf, (what) => printer.refuse(what, node)) : undefined;
        if (node.operator !== 'LIKE' && node.operator !== 'NOT LIKE') return undefined;
        return likeSql(printer.expr(node.left), node.operator, printer.expr(node.right));
      },
      quantified_like: quantifiedLike,
      in_unnest: (node, printer) => {
        const elements = node.array.kind === 'array' ? node.array.elements : [];
        const shape = structShape(node.operand) ?? elements.map(structShape).find((found) => found !== undefined);
        if (shape === undefined) return `(${printer.expr(node.operand)} ${node.not ? 'NOT IN' : 'IN'} (SELECT UNNEST(${printer.expr(node.array)})))`;
        const found = structInUnnest(printer.expr(node.operand), printer.expr(node.array), shape, (what) => printer.refuse(what, node));
        return node.not ? `(NOT ${found})` : found;
      },
      in_list: (node, printer) => {
        const bignumeric = bignumericIn(node, printer);
        if (bignumeric !== undefined) return bignumeric;
        const shape = structShape(node.operand) ?? node.list.map(structShape).find((found) => found !== undefined);
        if (shape === undefined) {
          return floats(node.operand, ...node.list) ? nanIn(operand(node.operand, printer), node.list.map((item) => operand(item, printer)), node.not, typeOf, (what) => printer.refuse(what, node)) : undefined;
        }
        // IN is an OR of equalities, whose three values are GoogleSQL's rule for IN.
        const operandSql = printer.expr(node.operand);
        const equalities = node.list.map((item) => structEquality(operandSql, printer.expr(item), shape, (what) => printer.refuse(what, node)));
        const found = `(${equalities.join(' OR ')})`;
        return node.not ? `(NOT ${found})` : found;
      },
      unary: (node, printer) => raisingArgument(node, printer) ?? bignumericNegation(node, printer),
      call: (node, printer) => raisingArgument(node, printer) ?? bignumericCall(node, printer) ?? structNullif(node, printer),
      case: (node, printer) => bignumericCase(node, printer) ?? structCase(node, printer),
      cast: (node, printer) => bignumericCast(node, printer) ?? structCast(printer.expr(node.operand), node.type, node.safe, printer.typeName, (what) => printer.refuse(what, node)),
      between: (node, printer) => {
        const bignumeric = bignumericBetween(node, printer);
        if (bignumeric !== undefined) return bignumeric;
        if ([node.operand, node.low, node.high].some((side) => structShape(side) !== undefined)) {
          return printer.refuse('BETWEEN of STRUCTs (GoogleSQL compares STRUCTs for equality only)', node);
        }
        return floats(node.operand, node.low, node.high) ? nanBetween(operand(node.operand, printer), operand(node.low, printer), operand(node.high, printer), node.not, typeOf, (what) => printer.refuse(what, node)) : undefined;
      },
      orderItem: (item, printer) => (floats(item.expr) ? nanOrderKey(printer.expr(item.expr), item.expr, typeOf, item.direction, item.nulls, (what) => printer.refuse(what, item.expr)) : undefined),
      interval: (node, printer) => {
        // DuckDB rounds fractional seconds past microseconds to the nearest (`INTERVAL '0.123456789'
        // SECOND` is 0.123457), where ZetaSQL's answers truncate them (`'0.000000001'` is 0): where
        // the two differ, a seventh digit of 5 or more, refused rather than rounded.
        if (node.value.kind === 'literal' && typeof node.value.value === 'string' && /\.\d{6}[5-9]/.test(node.value.value)) {
          return printer.refuse('an INTERVAL literal with fractional seconds past microseconds that DuckDB would round rather than truncate', node);
        }
        const value = printer.expr(node.value);
        return intervalInRange(`(INTERVAL (${value}) ${node.unit.toUpperCase()})`, node.value, value, node.unit);
      },
      extract: (node, printer) => {
        // AT TIME ZONE: the parts of the civil time there.
        const source = node.timeZone ? `timezone(${duckZone(printer.expr(node.timeZone))}, ${printer.expr(node.source)})` : printer.expr(node.source);
        return EXTRACT_PARTS[extractKey(node)]?.(source);
      },
      subscript: (node, printer) => {
        const index = repeatable(printer.expr(node.index), (what) => printer.refuse(what, node));
        const zeroBased = node.mode !== 'ORDINAL' && node.mode !== 'SAFE_ORDINAL';
        const safe = node.mode === 'SAFE_OFFSET' || node.mode === 'SAFE_ORDINAL';
        // DuckDB lists are 1-based, give NULL past the end and read a negative index from the end;
        // BigQuery has no element there: NULL for the SAFE_ forms, an error for the others (typed
        // as an element, the array read at a position that cannot be cast, so the CASE binds).
        const position = zeroBased ? `(${index}) + 1` : index;
        const literal = node.index.kind === 'literal' && node.index.type === 'int64' ? Number(node.index.value) : undefined;
        if (literal !== undefined && safe && literal >= (zeroBased ? 0 : 1)) return `${printer.expr(node.array)}[${position}]`;
        return computedOnce(printer.expr(node.array), (array) => {
          const outOfRange = `${array}[${raise(`Array index out of bounds: ${node.mode === 'INDEX' ? 'OFFSET' : node.mode}`)}]`;
          if (literal !== undefined && literal < (zeroBased ? 0 : 1)) return safe ? 'NULL' : `(CASE WHEN ${array} IS NULL THEN NULL ELSE ${outOfRange} END)`;
          const inRange = literal !== undefined ? `len(${array}) >= ${zeroBased ? literal + 1 : literal}` : `(${index}) >= ${zeroBased ? 0 : 1} AND (${index}) ${zeroBased ? '<' : '<='} len(${array})`;
          if (safe) return `(CASE WHEN ${inRange} THEN ${array}[${position}] END)`;
          const isNull = literal !== undefined ? `${array} IS NULL` : `${array} IS NULL OR (${index}) IS NULL`;
          return `(CASE WHEN ${inRange} THEN ${array}[${position}] WHEN ${isNull} THEN NULL ELSE ${outOfRange} END)`;
        });
      },
      literal: (node, printer) => {
        if (node.type === 'bytes') return `unhex('${String(node.value)}')`;
        if ((node.type === 'date' || node.type === 'time' || node.type === 'datetime' || node.type === 'timestamp') && !isTimeText(node.type, String(node.value))) {
          throw new InvalidQuery(`Invalid ${node.type.toUpperCase()} literal: ${String(node.value)}`, node.loc);
        }
        if (node.type === 'bignumeric') return bignumericLiteral(node);
        if (node.type === 'numeric') return `CAST(${quoteString(String(node.value))} AS ${printer.typeName({ name: 'NUMERIC' })})`;
        // A JSON value is held as its canonical text; text that is no JSON is BigQuery's error too.
        if (node.type === 'json') return `CAST(${quoteString(jsonLiteralText(String(node.value), node))} AS JSON)`;
        return undefined;
      },
      struct: (node, printer) => {
        // Fields BigQuery leaves unnamed are named as its results name them: _field_1, _field_2...
        const fields = node.fields.map((field, index) => {
          const declared = node.type?.fields?.[index];
          const name = declared?.name ?? field.name ?? `_field_${index + 1}`;
          const value = declared ? `CAST(${printer.expr(field.expr)} AS ${printer.typeName(declared.type)})` : printer.expr(field.expr);
          return { name, sql: `${printer.identifier(name)} := ${value}` };
        });
        const names = fields.map((field) => field.name.toLowerCase());
        const twice = names.find((name, index) => names.indexOf(name) !== index);
        // BigQuery allows two fields of one name (STRUCT(a.id, b.id)); DuckDB's structs do not.
        if (twice !== undefined) printer.refuse(`a STRUCT with two fields named ${twice} (name them apart with AS)`, node);
        return `struct_pack(${fields.map((field) => field.sql).join(', ')})`;
      },
      array: (node, printer) => {
        // BigQuery has no ARRAY of ARRAYs and refuses to build one; DuckDB's lists nest (ZetaSQL's array_concat_agg_array).
        if (node.elementType?.name === 'ARRAY' || node.elements.some((element) => element.kind === 'array')) return printer.refuse(NESTED_ARRAY, node);
        if (node.elementType) return `CAST([${node.elements.map(printer.expr).join(', ')}] AS ${printer.typeName(node.elementType)}[])`;
        const named = namedStructElements(node);
        if ('conflict' in named) return printer.refuse(named.conflict, node);
        return named.names === undefined ? undefined : `[${named.elements.map(printer.expr).join(', ')}]`;
      },
      typeName: (type, printer) => {
        // A BIGNUMERIC held as its units (bignumeric.ts) is written there; one inside an ARRAY or STRUCT type would be read as ones.
        if (type.name === 'BIGNUMERIC' || type.name === 'BIGDECIMAL') return printer.refuse(`BIGNUMERIC as the type of an ARRAY's elements or a STRUCT's fields`);
        if (type.name === 'ARRAY' && type.element?.name === 'ARRAY') return printer.refuse(NESTED_ARRAY);
        if (type.name === 'ARRAY' && type.element) return `${printer.typeName(type.element)}[]`;
        // A RANGE's bounds, unbounded ones infinite (functions/ranges.ts).
        if (type.name === 'RANGE' && type.element) return `STRUCT("start" ${printer.typeName(type.element)}, "end" ${printer.typeName(type.element)})`;
        if (type.name !== 'STRUCT' || !type.fields) return undefined;
        return `STRUCT(${type.fields.map((field, index) => `${printer.identifier(field.name ?? `_field_${index + 1}`)} ${printer.typeName(field.type)}`).join(', ')})`;
      },
    },
  };
}
