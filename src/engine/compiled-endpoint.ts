/** An endpoint as the engine serves it: its definition, what analysis found, and its SQL for the active backend. */
import type { EndpointDefinition } from '../core/types.js';
import type { DerivedParameter, Query, WriteBack } from '../sql/parse/tree.js';

/** What static analysis learns from the SQL (from the query tree, never from the text). */
export interface QueryAnalysis {
  params: string[];
  ctes: string[];
  sources: string[];
}

/** An endpoint ready to serve: validated, analysed and compiled for the active backend. */
export interface CompiledEndpoint {
  definition: EndpointDefinition;
  file: string;
  analysis: QueryAnalysis;
  /** The query's tree (kept for sandbox queries, which replace its final selection). */
  statement: Query;
  /** Executable SQL for the active backend, parameters still as placeholders. */
  sql: string;
  /** The parameters that SQL binds. */
  sqlParameters: string[];
  /** Those of them the engine works out per request from the caller's (sql/analyse/derived-parameters.ts). */
  sqlDerived: Record<string, DerivedParameter>;
  /** Its columns the backend writes back into BigQuery's types as it converts rows. */
  sqlWriteBack?: Record<string, WriteBack> | undefined;
  /** Hash of the definition; changes whenever the file's meaning changes. */
  version: string;
}
