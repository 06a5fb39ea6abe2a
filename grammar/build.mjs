/**
 * Compiles grammar/bigquery.pegjs (node-sql-parser's BigQuery grammar with cannery's patches,
 * see docs/sql-parser.md) into the ES module that src/sql/parse.ts imports as `#bigquery-grammar`.
 * Runs before tsc in `npm run build`; the output ships in dist/ like the rest of the build.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import peggy from 'peggy';

const grammar = new URL('./bigquery.pegjs', import.meta.url);
const output = new URL('../dist/sql/parse/bigquery-grammar.js', import.meta.url);

const source = await readFile(grammar, 'utf8');
// No `dependencies`: the grammar's `BigInt` is then JavaScript's own (node-sql-parser's bundle
// injects the big-integer package under that name; both read a digit string the same way).
const code = peggy.generate(source, { output: 'source', format: 'es', grammarSource: 'grammar/bigquery.pegjs' });
await mkdir(new URL('./', output), { recursive: true });
await writeFile(output, code);
