import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

/**
 * schemas/endpoint.schema.json, read at run time rather than imported: it lives outside src/,
 * and editors read the same file. Both src/config and dist/config sit two levels below the root.
 */
export const ENDPOINT_SCHEMA_URL = new URL('../../schemas/endpoint.schema.json', import.meta.url);

let compiled: ValidateFunction | undefined;

/**
 * Validates parsed endpoint data in place: ajv fills in schema defaults (a param's
 * `required: false`), so callers see the same shape whether or not the file wrote them.
 * Returns every error, with its schema and data attached for message building.
 */
export function validateEndpointData(data: unknown): ErrorObject[] {
  compiled ??= compile();
  return compiled(data) ? [] : [...(compiled.errors ?? [])];
}

function compile(): ValidateFunction {
  const schema = JSON.parse(readFileSync(ENDPOINT_SCHEMA_URL, 'utf8')) as object;
  const ajv = new Ajv2020({ allErrors: true, verbose: true, useDefaults: true, strict: true });
  // Message annotations that the YAML language server shows in editors; we show the same text.
  ajv.addKeyword({ keyword: 'errorMessage', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'patternErrorMessage', schemaType: 'string' });
  return ajv.compile(schema);
}
