/**
 * What `cannery init` writes to show one's own data: a source file declaring a table
 * (sources/example.orders.yaml), an endpoint over it and the endpoint's tests, all passing `check`
 * and `test` as written; their schema lines point at cannery's schemas from where each is kept.
 */
import { join } from 'node:path';
import { ENDPOINT_TESTS_SCHEMA_URL, TESTS_FOLDER } from '../config/endpoint-tests-file.js';
import { ENDPOINT_SCHEMA_URL } from '../config/endpoint-schema.js';
import { SOURCE_SCHEMA_URL } from '../config/source-files.js';
import { schemaReference } from './schema-reference.js';

/** The example source's name, as endpoints write it in backticks. */
export const EXAMPLE_SOURCE = 'example.orders';
/** The example endpoint over it. */
export const EXAMPLE_SOURCE_ENDPOINT = 'example.customer-orders';

/** The source file, to be written in the sources folder `dir` beside the endpoints folder `endpoints`. */
export function exampleSourceTemplate(dir: string, endpoints: string): string {
  return `# yaml-language-server: $schema=${schemaReference(dir, endpoints, SOURCE_SCHEMA_URL)}
#
# A table endpoints read as \`${EXAMPLE_SOURCE}\`, an example to replace with your own. Columns are
# written as BigQuery's schema (what \`bq show --schema\` prints), so a table's can be pasted in.
# \`cannery sources infer FILE --name NAME\` writes a file like this one from a sample CSV, NDJSON
# or Parquet file; \`cannery import --source ${EXAMPLE_SOURCE} FILE\` loads a file into the table.
name: ${EXAMPLE_SOURCE}
description: One row per order.
# Optional: a TIMESTAMP, DATE or DATETIME column; rows are stored in its order.
time_column: created_at
columns:
  # Types: STRING, BYTES, INT64, FLOAT64, NUMERIC, BOOL, TIMESTAMP, DATE, DATETIME, TIME, JSON, RECORD.
  # Modes: NULLABLE (the default), REQUIRED, REPEATED (an array).
  - { name: order_id, type: STRING, mode: REQUIRED }
  - { name: customer, type: STRING }
  - { name: total, type: NUMERIC }
  - { name: created_at, type: TIMESTAMP, mode: REQUIRED }
  # A repeated record: an ARRAY<STRUCT<sku STRING, qty INT64>>, read with UNNEST.
  - name: items
    type: RECORD
    mode: REPEATED
    fields: [ { name: sku, type: STRING }, { name: qty, type: INT64 } ]
`;
}

/** The endpoint over the example source, to be written in the endpoints folder `dir`. */
export function exampleSourceEndpointTemplate(id: string, dir: string): string {
  return `# yaml-language-server: $schema=${schemaReference(dir, dir, ENDPOINT_SCHEMA_URL)}
#
# An endpoint over a table of your own, declared in ../sources/${EXAMPLE_SOURCE}.yaml.
id: ${id}
name: ${EXAMPLE_SOURCE_ENDPOINT}
description: One customer's orders, newest first, with the quantity of items in each.
language: bq_sql
max_rows: 100
cache: false
sandbox: false
redact_pii: false
params:
  customer:
    type: string
    required: true
    description: The customer whose orders are returned.
query: |
  select o.order_id, o.total, o.created_at, (select sum(i.qty) from unnest(o.items) as i) as quantity
  from \`${EXAMPLE_SOURCE}\` as o
  where o.customer = @customer
  order by o.created_at desc
`;
}

/** The example endpoint's tests, to be written in the tests/ of the endpoints folder `dir`. */
export function exampleSourceTestTemplate(dir: string): string {
  return `# yaml-language-server: $schema=${schemaReference(join(dir, TESTS_FOLDER), dir, ENDPOINT_TESTS_SCHEMA_URL)}
#
# Tests of ${EXAMPLE_SOURCE_ENDPOINT}: \`cannery test --filter ${EXAMPLE_SOURCE_ENDPOINT}\`. Each runs on a
# fresh in-memory database, where ${EXAMPLE_SOURCE}'s table is empty.
endpoint: ${EXAMPLE_SOURCE_ENDPOINT}
now: "2026-01-01T12:00:00Z"
tests:
  - name: a customer without orders gets no rows
    request: {params: {customer: ada}}
    expect:
      rows: []

  - name: customer is required
    expect:
      error: {code: missing_parameter, param: customer}
`;
}
