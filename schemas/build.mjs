/**
 * Each schema of schemas/ compiled ahead of time into dist/config/validators/NAME.cjs (ajv's
 * standalone code, with the hash of the schema text it came from), so no start spends ajv's
 * 100 ms compiling one; src/config/json-schema.ts uses a validator only for the text it was
 * built from. Runs after the TypeScript build, in `npm run build` and `npm run build:start`.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { precompiledPath, schemaAjv, schemaHash } from '../dist/config/json-schema.js';

const dir = fileURLToPath(new URL('./', import.meta.url));
for (const name of (await readdir(dir)).filter((file) => file.endsWith('.schema.json'))) {
  const file = join(dir, name);
  const text = await readFile(file, 'utf8');
  const ajv = schemaAjv({ code: { source: true } });
  const code = standaloneCode.default(ajv, ajv.compile(JSON.parse(text)));
  const out = precompiledPath(file);
  await mkdir(join(out, '..'), { recursive: true });
  await writeFile(out, `${code}\nmodule.exports.schemaHash = ${JSON.stringify(schemaHash(text))};\n`);
}

// The shipped log source files, read ahead of time the same way (src/config/sources.ts).
const { PRECOMPILED_BUILT_INS, precompiledBuiltIns } = await import('../dist/config/sources.js');
await writeFile(PRECOMPILED_BUILT_INS, await precompiledBuiltIns());
