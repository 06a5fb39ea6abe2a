import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Ajv2020, ErrorObject, Options, ValidateFunction } from 'ajv/dist/2020.js';

const require = createRequire(import.meta.url);

/**
 * A validator for one of the schemas in schemas/, made on first use. The schemas are read at run
 * time rather than imported: they live outside src/, and editors read the same files.
 *
 * It validates in place: ajv fills in schema defaults (a param's `required: false`), so callers
 * see the same shape whether or not the file wrote them. It returns every error, with its schema
 * and data attached for message building.
 */
export function schemaValidator(url: URL): (data: unknown) => ErrorObject[] {
  let compiled: ValidateFunction | undefined;
  return (data) => {
    compiled ??= validatorOf(url);
    return compiled(data) ? [] : [...(compiled.errors ?? [])];
  };
}

/**
 * The one ajv set-up every schema is compiled with, here and by schemas/build.mjs ahead of time.
 * ajv itself is loaded only here: a build's validators need only its small runtime helpers.
 */
export function schemaAjv(options: Options = {}): Ajv2020 {
  const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  // Union types (`type: [string, integer]`) are plain JSON Schema; strict mode only asks to allow them.
  const ajv = new Ajv2020({ allErrors: true, verbose: true, useDefaults: true, strict: true, allowUnionTypes: true, ...options });
  // Message annotations that the YAML language server shows in editors; we show the same text.
  ajv.addKeyword({ keyword: 'errorMessage', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'patternErrorMessage', schemaType: 'string' });
  return ajv;
}

/** The hash a precompiled validator records of the schema text it was compiled from. */
export function schemaHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Where `npm run build` writes the validator of schemas/NAME.json: dist/config/validators/NAME.cjs. */
export function precompiledPath(schemaFile: string): string {
  return fileURLToPath(new URL(`./validators/${basename(schemaFile).replace(/\.json$/, '')}.cjs`, import.meta.url));
}

function validatorOf(url: URL): ValidateFunction {
  const text = readFileSync(url, 'utf8');
  // Compiling a schema takes ajv about 100 ms, on every start that reads a file; the build does
  // it ahead of time. A validator built from other text (the schema edited since) is not used.
  return precompiled(fileURLToPath(url), text) ?? schemaAjv().compile(JSON.parse(text) as object);
}

function precompiled(schemaFile: string, text: string): ValidateFunction | undefined {
  let validate: (ValidateFunction & { schemaHash?: unknown }) | undefined;
  try {
    validate = require(precompiledPath(schemaFile)) as ValidateFunction & { schemaHash?: unknown };
  } catch {
    return undefined;
  }
  return typeof validate === 'function' && validate.schemaHash === schemaHash(text) ? validate : undefined;
}
