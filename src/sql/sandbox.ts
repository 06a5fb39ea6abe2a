/**
 * Sandbox queries: a consumer's SELECT that replaces an endpoint's final selection and keeps
 * its CTEs. Everything is checked on the AST before anything runs:
 *  - exactly one SELECT statement;
 *  - every relation, anywhere, is an endpoint CTE, one of the consumer's own CTEs, a
 *    subquery or an UNNEST; never a source table or any other name;
 *  - every function is on the allowlist (the functions the translator supports);
 *  - every @param is one the endpoint declares.
 * The backends add their own defences (DuckDB runs sealed, with a timeout and a memory limit).
 */
import { functionName, isNode, tableReferenceName, withClauses } from './ast.js';
import { SANDBOX_FUNCTIONS } from './duckdb/functions.js';
import { parseBigQuery, SqlSyntaxError, type AstNode } from './parse.js';
import { walk } from './walk.js';

export class SandboxViolation extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxViolation';
  }
}

export interface SandboxContext {
  /** The endpoint's parsed query; its CTEs are what the consumer may read. */
  statement: AstNode;
  declaredParams: readonly string[];
}

/** Functions refused by name with a reason: they reach outside the endpoint's data. */
const OUTSIDE_REACHING = /^(read_\w+|glob|getenv|current_setting|current_user|session_user|user|query|query_table|external_query|sniff_csv|parquet_\w+|duckdb_\w+|pragma_\w+|iceberg_\w+|delta_\w+|http_\w+|load|install)$/;

/** Statements that are not SELECT, named when the parser cannot read them as SQL it knows. */
const STATEMENT_KEYWORDS = /^(attach|detach|pragma|copy|install|load|export|import|call|checkpoint|set|reset|insert|update|delete|merge|create|drop|alter|truncate|grant|revoke|begin|commit|rollback|vacuum|analyze|use|describe|show|summarize|execute|prepare|declare)\b/i;

/** Checks the consumer SQL and returns one statement: the endpoint's CTEs, then the consumer's query. */
export function composeSandboxQuery(consumerSql: string, context: SandboxContext): AstNode {
  const consumer = parseConsumerSql(consumerSql);
  const endpointCtes = withClauses(context.statement);
  const endpointNames = new Set(endpointCtes.map((cte) => cte.name.toLowerCase()));
  const consumerCtes = withClauses(consumer);
  for (const cte of consumerCtes) {
    if (endpointNames.has(cte.name.toLowerCase())) {
      throw new SandboxViolation(`CTE "${cte.name}" is already defined by the endpoint; choose another name`);
    }
  }
  const readable = new Set([...endpointNames, ...consumerCtes.map((cte) => cte.name.toLowerCase())]);
  checkConsumerAst(consumer, readable, endpointCtes.map((cte) => cte.name), context.declaredParams);
  const endpointWith = Array.isArray(context.statement.with) ? context.statement.with : [];
  const consumerWith = Array.isArray(consumer.with) ? consumer.with : [];
  return { ...consumer, with: [...endpointWith, ...consumerWith] };
}

function parseConsumerSql(sql: string): AstNode {
  let statements: AstNode[];
  try {
    statements = parseBigQuery(sql);
  } catch (error) {
    if (!(error instanceof SqlSyntaxError)) throw error;
    const keyword = STATEMENT_KEYWORDS.exec(stripLeadingComments(sql))?.[1];
    if (keyword) throw new SandboxViolation(`${keyword.toUpperCase()} is not allowed: send exactly one SELECT statement`);
    const where = error.location ? ` (line ${error.location.line}, column ${error.location.column})` : '';
    throw new SandboxViolation(`sql is not a SELECT the sandbox can read: ${error.message}${where}`);
  }
  if (statements.length !== 1) throw new SandboxViolation(`send exactly one SELECT statement (got ${statements.length})`);
  const statement = statements[0]!;
  if (statement.type !== 'select') {
    throw new SandboxViolation(`${String(statement.type).toUpperCase()} is not allowed: send exactly one SELECT statement`);
  }
  return statement;
}

function stripLeadingComments(sql: string): string {
  return sql.replace(/^(\s+|--[^\n]*(\n|$)|\/\*[\s\S]*?\*\/)*/, '');
}

function checkConsumerAst(consumer: AstNode, readable: ReadonlySet<string>, endpointCtes: string[], declared: readonly string[]): void {
  const allowedRelations = `the endpoint's CTEs (${endpointCtes.join(', ')}), your own CTEs, subqueries and UNNEST`;
  walk(consumer, (node) => {
    switch (node.type) {
      case 'function': {
        const name = functionName(node);
        if (SANDBOX_FUNCTIONS.has(name)) return;
        const reason = OUTSIDE_REACHING.test(name) ? 'it reaches outside the endpoint\'s data' : 'it is not on the list of supported functions (see the README)';
        throw new SandboxViolation(`function ${name.toUpperCase()} is not allowed in a sandbox query: ${reason}`);
      }
      case 'aggr_func': {
        const name = String(node.name).toLowerCase();
        if (!SANDBOX_FUNCTIONS.has(name)) throw new SandboxViolation(`aggregate ${name.toUpperCase()} is not allowed in a sandbox query`);
        return;
      }
      case 'param': {
        const name = String(node.value);
        if (!declared.includes(name)) {
          const accepted = declared.length ? declared.map((param) => `@${param}`).join(', ') : 'none';
          throw new SandboxViolation(`@${name} is not a parameter of this endpoint (declared: ${accepted})`);
        }
        return;
      }
      case 'select':
        for (const item of Array.isArray(node.from) ? node.from.filter(isNode) : []) checkRelation(item, readable, allowedRelations);
        return;
      default:
        return;
    }
  });
}

function checkRelation(item: AstNode, readable: ReadonlySet<string>, allowed: string): void {
  if (item.type === 'unnest') return;
  if (isNode(item.expr) && isNode(item.expr.ast)) return;
  if (isNode(item.expr)) {
    const name = item.expr.type === 'function' ? functionName(item.expr).toUpperCase() : String(item.expr.type);
    throw new SandboxViolation(`table function ${name} is not allowed: a sandbox query may read only ${allowed}`);
  }
  const name = tableReferenceName(item);
  if (name === undefined) throw new SandboxViolation(`this FROM item is not allowed: a sandbox query may read only ${allowed}`);
  if (item.db || !readable.has(name.toLowerCase())) {
    throw new SandboxViolation(`table \`${name}\` is not allowed: a sandbox query may read only ${allowed}`);
  }
}
