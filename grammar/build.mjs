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
await writeFile(output, withSpacingMemo(code));

/**
 * `__` (spaces and comments) is tried before almost every token, and an alternative that fails
 * leaves the next one to try it again at the same place: on bench:startup's 500 queries, 755 of
 * its 936 calls per query repeated the call before, with whitespace and the three comment rules
 * under each. Peggy memoizes every rule or none (`cache`, three times slower here), so this keeps
 * `__`'s last answer: asked again at the same place, with failures recorded or not as before, it
 * gives the same end and value without parsing again (docs/sql-parser.md, "16."). The memo lives
 * in each parse's own variables. The build fails if peggy's output no longer has the shape.
 */
function withSpacingMemo(generated) {
  const rule = '  function peg$parse__() {\n';
  const state = /\n(\s*)let peg\$currPos = /;
  if (generated.split(rule).length !== 2 || !state.test(generated)) throw new Error("grammar build: peggy's output changed shape (the __ rule or peg$currPos)");
  return generated
    .replace(state, (found, indent) => `\n${indent}// withSpacingMemo (grammar/build.mjs): where __ last started, ended, and what it gave.\n${indent}let peg$spacingAt = -1, peg$spacingSilent = -1, peg$spacingEnd = -1, peg$spacingValue;${found}`)
    .replace(
      rule,
      `  function peg$parse__() {
    if (peg$currPos === peg$spacingAt && peg$silentFails === peg$spacingSilent) {
      peg$currPos = peg$spacingEnd;
      return peg$spacingValue;
    }
    const start = peg$currPos;
    const silent = peg$silentFails;
    const value = peg$parse__once();
    peg$spacingAt = start;
    peg$spacingSilent = silent;
    peg$spacingEnd = peg$currPos;
    peg$spacingValue = value;
    return value;
  }

  function peg$parse__once() {
`,
    );
}
