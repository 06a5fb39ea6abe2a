/**
 * `cannery diff`'s engine: the endpoints of two versions of a folder paired up (by id, then by
 * name), each pair's changes classed, and, where tests exist, what each version answers to
 * every test's request on the test's input.
 */
import { findTestedEndpoint } from '../../config/endpoint-tests-check.js';
import type { EndpointTestFile, TestExpectation } from '../../config/endpoint-tests-file.js';
import { generate } from '../../sql/generator/generate.js';
import type { ScratchEngine } from '../backend.js';
import type { CompiledEndpoint } from '../compiled-endpoint.js';
import { change, columnChanges, columnRenames, paramChanges, settingChanges, type Change } from './contract-diff.js';
import { contractParams, type ContractBook } from './contract.js';
import { answerTest, TestSetupError, type TestAnswer } from '../testing/run.js';
import type { Registry } from '../serve/registry.js';
import { flowText } from '../testing/row-match.js';
import { judge } from '../testing/verdict.js';
import { diffSequences, diffText } from '../testing/sequence-diff.js';

/** What the old and the new query answer to one test's request. */
export interface RowDifference {
  test: string;
  file: string;
  line: number;
  /** In a few words: `3 row(s)`, `error missing_parameter (param x)`. */
  before: string;
  after: string;
  /**
   * Whether the new query answers differently, as `cannery test` would see it: a test expecting
   * the old answer (its rows, or its error's code and parameter) would fail.
   */
  differs: boolean;
  /** Whether the new query fails the test as written (what `cannery test` says of it). */
  fails: boolean;
  /** `- ` the old query's rows, `+ ` the new one's, on the columns both return (a renamed one under its new name); empty when they do not differ. */
  lines: string[];
}

export interface EndpointDiff {
  /** The name callers use now (for a removed endpoint, the name they used). */
  name: string;
  /** `affected`: its file is unchanged, or it no longer compiles, and a source it reads changed (source-diff.ts). */
  status: 'added' | 'removed' | 'changed' | 'affected';
  /** The file that holds it now, or held it at the base. */
  file: string;
  changes: Change[];
  /** One per test of the endpoint, when its definition changed. */
  rows: RowDifference[];
}

interface Pair {
  before?: CompiledEndpoint;
  after?: CompiledEndpoint;
}

export async function diffEndpoints(
  before: Registry,
  after: Registry,
  testFiles: readonly EndpointTestFile[],
  engine: ScratchEngine,
  contracts: ContractBook,
): Promise<EndpointDiff[]> {
  const diffs: EndpointDiff[] = [];
  for (const { before: old, after: now } of pairUp(before.endpoints, after.endpoints)) {
    if (old && now && old.version === now.version) continue;
    if (!old) {
      diffs.push({ name: now!.definition.name, status: 'added', file: now!.file, changes: [change('endpoint_added', 'new endpoint')], rows: [] });
    } else if (!now) {
      const removed = change('endpoint_removed', `endpoint removed: callers get endpoint_not_found`);
      diffs.push({ name: old.definition.name, status: 'removed', file: old.file, changes: [removed], rows: [] });
    } else {
      const columns = await contractChanges(old, now, contracts);
      const changes = [...identityChanges(old, now), ...columns.changes, ...settingChanges(old.definition, now.definition)];
      if (queryText(old, engine) !== queryText(now, engine)) changes.push(change('query_changed', 'the query changed'));
      if (old.definition.description !== now.definition.description) changes.push(change('description_changed', 'the description changed'));
      // Breaking changes first: they are what a reviewer must not miss (sort keeps the order within each class).
      changes.sort((a, b) => Number(a.compatibility !== 'breaking') - Number(b.compatibility !== 'breaking'));
      diffs.push({ name: now.definition.name, status: 'changed', file: now.file, changes, rows: await rowDifferences(old, now, testFiles, engine, columns.renames) });
    }
  }
  return diffs;
}

/** By id first (the identity that never changes), then by name (an id that changed). */
function pairUp(before: readonly CompiledEndpoint[], after: readonly CompiledEndpoint[]): Pair[] {
  const unmatched = new Set(before);
  const pairs: Pair[] = after.map((now) => {
    const old =
      [...unmatched].find((candidate) => candidate.definition.id === now.definition.id) ??
      [...unmatched].find((candidate) => candidate.definition.name === now.definition.name);
    if (old) unmatched.delete(old);
    return { before: old, after: now };
  });
  return [...pairs, ...[...unmatched].map((old) => ({ before: old }))];
}

function identityChanges(old: CompiledEndpoint, now: CompiledEndpoint): Change[] {
  const changes: Change[] = [];
  const [was, is] = [old.definition, now.definition];
  if (was.name !== is.name) changes.push(change('endpoint_renamed', `renamed from ${was.name}: callers using the name ${was.name} get endpoint_not_found`));
  if (was.id !== is.id) changes.push(change('id_changed', `id changed from ${was.id} to ${is.id}: callers using the id get endpoint_not_found`));
  return changes;
}

/** Parameter and column changes, and the columns renamed (old name -> new), top level. */
async function contractChanges(old: CompiledEndpoint, now: CompiledEndpoint, contracts: ContractBook): Promise<{ changes: Change[]; renames: Map<string, string> }> {
  const changes = paramChanges(contractParams(old.definition), contractParams(now.definition));
  const outcomes = await contracts.of([old, now]);
  const [was, is] = [outcomes.get(old)!, outcomes.get(now)!];
  if (is.problem !== undefined) changes.push(change('columns_unknown', `the columns cannot be described: ${is.problem}`));
  else if (was.contract) {
    changes.push(...columnChanges(was.contract.columns, is.contract.columns));
    return { changes, renames: columnRenames(was.contract.columns, is.contract.columns) };
  }
  return { changes, renames: new Map() };
}

/** The SQL as compiled, with one row cap for both: a new max_rows is a settings change, not a query change. */
function queryText(endpoint: CompiledEndpoint, engine: ScratchEngine): string {
  return generate(endpoint.statement, engine.dialect, { rowCap: 1 }).sql;
}

async function rowDifferences(
  old: CompiledEndpoint,
  now: CompiledEndpoint,
  testFiles: readonly EndpointTestFile[],
  engine: ScratchEngine,
  renames: ReadonlyMap<string, string>,
): Promise<RowDifference[]> {
  const differences: RowDifference[] = [];
  for (const testFile of testFiles) {
    if (testFile.problems.length || testFile.endpoint === undefined || findTestedEndpoint(testFile.endpoint, [now]) === undefined) continue;
    for (const test of testFile.tests) {
      let answers: [TestAnswer, TestAnswer];
      try {
        answers = [await answerTest(old, test, engine), await answerTest(now, test, engine)];
      } catch (error) {
        // The test cannot run on either version (`cannery test` reports why).
        if (error instanceof TestSetupError) continue;
        throw error;
      }
      const differs = !judge(expectationOf(answers[0]), answers[1]).passed;
      const [was, is] = sharedColumns(answers, renames).map(answerLines) as [string[], string[]];
      const steps = diffSequences(was, is, (a, b) => a === b);
      const lines = steps.every((step) => step.kind === 'same') ? columnNote(answers, renames) : diffText(steps, String, String);
      differences.push({
        test: test.name,
        file: testFile.file,
        line: test.line,
        before: answerSummary(answers[0]),
        after: answerSummary(answers[1]),
        differs,
        fails: !judge(test.expect, answers[1]).passed,
        lines: differs ? lines : [],
      });
    }
  }
  return differences;
}

/** The old answer as a test that expects it exactly would write it. */
function expectationOf(answer: TestAnswer): TestExpectation {
  if (answer.error) return { kind: 'error', code: answer.error.code, ...(answer.error.param === undefined ? {} : { param: answer.error.param }) };
  return { kind: 'rows', rows: answer.rows };
}

/**
 * Rows cut down to the columns both versions return, a renamed column under its new name: a
 * column added, removed or renamed is already a change of its own, and would otherwise make
 * every row differ.
 */
function sharedColumns([was, is]: [TestAnswer, TestAnswer], renames: ReadonlyMap<string, string>): [TestAnswer, TestAnswer] {
  const [oldRow, newRow] = [was.rows?.[0], is.rows?.[0]];
  if (!oldRow || !newRow) return [was, is];
  const renamed: TestAnswer = { rows: was.rows!.map((row) => Object.fromEntries(Object.entries(row).map(([column, value]) => [renames.get(column) ?? column, value]))) };
  const shared = Object.keys(newRow).filter((column) => Object.hasOwn(renamed.rows![0]!, column));
  const cut = (answer: TestAnswer): TestAnswer => ({ rows: answer.rows!.map((row) => Object.fromEntries(shared.map((column) => [column, row[column]!]))) });
  return [cut(renamed), cut(is)];
}

/** When the values are the same but columns the old rows had are not: which, and what became of them. */
function columnNote([was, is]: [TestAnswer, TestAnswer], renames: ReadonlyMap<string, string>): string[] {
  const [oldRow, newRow] = [was.rows?.[0], is.rows?.[0]];
  if (!oldRow || !newRow) return [];
  const gone = Object.keys(oldRow).filter((column) => !Object.hasOwn(newRow, column));
  const fates = gone.map((column) => (renames.has(column) ? `"${column}" is now "${renames.get(column)}"` : `"${column}" is gone`));
  return fates.length ? [`the same values, but in every row ${fates.join(', ')}`] : [];
}

function answerLines(answer: TestAnswer): string[] {
  if (answer.error) return [`error ${answerSummary(answer).slice('error '.length)}: ${answer.error.message}`];
  return answer.rows.map(flowText);
}

function answerSummary(answer: TestAnswer): string {
  if (!answer.error) return `${answer.rows.length} row(s)`;
  return `error ${answer.error.code}${answer.error.param === undefined ? '' : ` (param ${answer.error.param})`}`;
}
