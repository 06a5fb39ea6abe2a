/**
 * The part of every endpoint file `cannery new` (and `init`) writes that does not depend on what
 * it reads: the editor hint, the explanation, and each field with its comment, down to the
 * parameters.
 */
import { ENDPOINT_SCHEMA_URL } from '../config/endpoint-schema.js';
import { schemaReference } from './schema-reference.js';

/** An endpoint file's fields before `params:`, for a file written in the endpoints folder `dir`. */
export function endpointTemplateHead(name: string, id: string, dir: string, description: string): string {
  return `# yaml-language-server: $schema=${schemaReference(dir, dir, ENDPOINT_SCHEMA_URL)}
#
# One stored query, served at /api/endpoints/query/${name} (or by its id). Every field is
# required. \`cannery check\` validates this file, \`cannery test\` runs tests/${name}.yaml,
# \`cannery describe ${name}\` shows what callers get back.

# Fixed forever: callers may use it instead of the name.
id: ${id}
# Lowercase letters, digits and _, in segments joined by . or -.
name: ${name}
description: ${description}
language: bq_sql
# Never more rows than this (1 to 100000).
max_rows: 1000
# false, or {ttl_seconds: 900, warm_every_seconds: 300} to cache answers (and refresh them).
cache: false
# true lets callers send their own SELECT over this query's CTEs in the \`sql\` parameter.
sandbox: false
# true redacts IP and e-mail addresses in every answer; callers can also ask per request.
redact_pii: false
`;
}
