/**
 * `cannery diff`'s engine: the endpoints of two versions of a folder paired up (by id, then by
 * name), each pair's changes classed, and, where tests exist, what each version answers to
 * every test's request on the test's input.
 */
import { findTestedEndpoint } from '../../config/endpoint-tests-check.js';
import type { EndpointTestFile } from '../../config/endpoint-tests-file.js';
import { generate } from '../../sql/generator/generate.js';
import type { ScratchEngine } from '../backend.js';
import type { CompiledEndpoint } from '../compiled-endpoint.js';
import { change, columnChanges, paramChanges, settingChanges, type Change } from './contract-diff.js';
import { contractParams, type ContractBook } from './contract.js';
import { answerTest, TestSetupError, type TestAnswer } from '../testing/run.js';
import type { Registry } from '../serve/registry.js';
import { flowText } from '../testing/row-match.js';
import { diffSequences, diffText } from '../testing/sequence-diff.js';

/** What the old and the new query answer to one test's request. */
export interface RowDifference {
  test: string;
  file: string;
  line: number;
  /** In a few words: `3 row(s)`, `error missing_parameter (param x)`. */
  before: string;
  after: string;
  /** `- ` the old query's rows, `+ ` the new one's; empty when they answer the same. */
  lines: string[];
}

export interface EndpointDiff {
  /** The name callers use now (for a removed endpoint, the name they used). */
  name: string;
  status: 'added' | 'removed' | 'changed';
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
      const changes = [...identityChanges(old, now), ...(await contractChanges(old, now, contracts)), ...settingChanges(old.definition, now.definition)];
      if (queryText(old, engine) !== queryText(now, engine)) changes.push(change('query_changed', 'the query changed'));
      if (old.definition.description !== now.definition.description) changes.push(change('description_changed', 'the description changed'));
      diffs.push({ name: now.definition.name, status: 'changed', file: now.file, changes, rows: await rowDifferences(old, now, testFiles, engine) });
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

async function contractChanges(old: CompiledEndpoint, now: CompiledEndpoint, contracts: ContractBook): Promise<Change[]> {
  const changes = paramChanges(contractParams(old.definition), contractParams(now.definition));
  const outcomes = await contracts.of([old, now]);
  const [was, is] = [outcomes.get(old)!, outcomes.get(now)!];
  if (is.problem !== undefined) changes.push(change('columns_unknown', `the columns cannot be described: ${is.problem}`));
  else if (was.contract) changes.push(...columnChanges(was.contract.columns, is.contract.columns));
  return changes;
}

/** The SQL as compiled, with one row cap for both: a new max_rows is a settings change, not a query change. */
function queryText(endpoint: CompiledEndpoint, engine: ScratchEngine): string {
  return generate(endpoint.statement, engine.dialect, { rowCap: 1 }).sql;
}

async function rowDifferences(old: CompiledEndpoint, now: CompiledEndpoint, testFiles: readonly EndpointTestFile[], engine: ScratchEngine): Promise<RowDifference[]> {
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
      const [was, is] = sharedColumns(answers).map(answerLines) as [string[], string[]];
      const steps = diffSequences(was, is, (a, b) => a === b);
      const same = steps.every((step) => step.kind === 'same');
      differences.push({
        test: test.name,
        file: testFile.file,
        line: test.line,
        before: answerSummary(answers[0]),
        after: answerSummary(answers[1]),
        lines: same ? [] : diffText(steps, String, String),
      });
    }
  }
  return differences;
}

/**
 * Rows cut down to the columns both versions return: a column added or removed is already a
 * change of its own, and would otherwise make every row differ.
 */
function sharedColumns([was, is]: [TestAnswer, TestAnswer]): [TestAnswer, TestAnswer] {
  const [oldRow, newRow] = [was.rows?.[0], is.rows?.[0]];
  if (!oldRow || !newRow) return [was, is];
  const shared = Object.keys(newRow).filter((column) => Object.hasOwn(oldRow, column));
  const cut = (answer: TestAnswer): TestAnswer => ({ rows: answer.rows!.map((row) => Object.fromEntries(shared.map((column) => [column, row[column]!]))) });
  return [cut(was), cut(is)];
}

function answerLines(answer: TestAnswer): string[] {
  if (answer.error) return [`error ${answerSummary(answer).slice('error '.length)}: ${answer.error.message}`];
  return answer.rows.map(flowText);
}

function answerSummary(answer: TestAnswer): string {
  if (!answer.error) return `${answer.rows.length} row(s)`;
  return `error ${answer.error.code}${answer.error.param === undefined ? '' : ` (param ${answer.error.param})`}`;
}
