import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

/**
 * A validator for one of the schemas in schemas/, compiled on first use. The schemas are read
 * at run time rather than imported: they live outside src/, and editors read the same files.
 *
 * It validates in place: ajv fills in schema defaults (a param's `required: false`), so callers
 * see the same shape whether or not the file wrote them. It returns every error, with its schema
 * and data attached for message building.
 */
export function schemaValidator(url: URL): (data: unknown) => ErrorObject[] {
  let compiled: ValidateFunction | undefined;
  return (data) => {
    compiled ??= compile(url);
    return compiled(data) ? [] : [...(compiled.errors ?? [])];
  };
}

function compile(url: URL): ValidateFunction {
  const schema = JSON.parse(readFileSync(url, 'utf8')) as object;
  // Union types (`type: [string, integer]`) are plain JSON Schema; strict mode only asks to allow them.
  const ajv = new Ajv2020({ allErrors: true, verbose: true, useDefaults: true, strict: true, allowUnionTypes: true });
  // Message annotations that the YAML language server shows in editors; we show the same text.
  ajv.addKeyword({ keyword: 'errorMessage', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'patternErrorMessage', schemaType: 'string' });
  return ajv.compile(schema);
}
