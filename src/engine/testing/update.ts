/**
 * `cannery test --update`: the expectations of failing tests rewritten from what the endpoint
 * answers now. Only each rewritten `expect` is touched; every other byte of the file stays as
 * written. Within it, rows that still match keep their text and comments, and a changed row
 * takes the place (and the comment) of the row it replaces.
 */
import { Document, isCollection, isMap, isPair, isScalar, isSeq, parseDocument, Scalar, visit, type Node, type Pair, type YAMLMap, type YAMLSeq } from '#yaml';
import type { EndpointTest, JsonObject } from '../../config/endpoint-tests-file.js';
import type { WireRow } from '../../core/types.js';
import { matches, shownLike, templateOf, type Template } from './row-match.js';
import type { TestAnswer } from './run.js';
import { diffSequences } from './sequence-diff.js';
import { errorText } from './verdict.js';

export interface TestFix {
  test: EndpointTest;
  answer: TestAnswer;
  /** How a whole row of the endpoint is written (its timestamps as ISO text), where its columns are known. */
  wholeRows?: Template;
}

export interface FixOutcome {
  test: string;
  line: number;
  /** Whether the expectation was rewritten. */
  updated: boolean;
  /** What changed (`rows: 1 changed, 2 added`), or why it was left alone. */
  what: string;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Written as the shipped test files are: no line folding, `{a: 1}` rather than `{ a: 1 }`. */
const STYLE = { lineWidth: 0, flowCollectionPadding: false } as const;
/** Rows written on one line (`rows: [{n: 1}]`) stay there while they fit in this many characters. */
const ONE_LINE = 100;

/** `text` (a test file) with the expectation of each fix's test rewritten from its answer. */
export function updateExpectations(text: string, fixes: readonly TestFix[]): { text: string; outcomes: FixOutcome[] } {
  const doc = parseDocument(text);
  const tests = doc.get('tests', true);
  const edits: Edit[] = [];
  const outcomes: FixOutcome[] = [];
  for (const fix of fixes) {
    const { name, line, expect } = fix.test;
    const item = isSeq(tests) ? tests.items.find((entry): entry is YAMLMap => isMap(entry) && entry.get('name') === name) : undefined;
    const pair = item?.items.find((entry) => isScalar(entry.key) && entry.key.value === 'expect') as Pair<unknown, YAMLMap> | undefined;
    if (!pair || !isMap(pair.value) || !pair.value.range) throw new Error(`test "${name}" has no expect in the file it was read from`);
    if (expect.kind === 'includes') {
      outcomes.push({ test: name, line, updated: false, what: 'it lists rows the answer must include, in any order: which to list is yours to choose' });
      continue;
    }
    const region = regionOf(text, pair.value);
    const what = rewrite(doc, pair.value, fix);
    edits.push(spliced(text, pair as Pair<Ranged, YAMLMap>, region));
    outcomes.push({ test: name, line, updated: true, what });
  }
  edits.sort((a, b) => b.start - a.start);
  let updated = text;
  for (const edit of edits) updated = updated.slice(0, edit.start) + edit.text + updated.slice(edit.end);
  return { text: updated, outcomes };
}

/** Rewrites `expect` (the node) to what the fix's answer says; returns what changed, in words. */
function rewrite(doc: Document, expect: YAMLMap, fix: TestFix): string {
  const { test, answer } = fix;
  const before = test.expect.kind === 'error' ? `error ${errorText(test.expect)}` : `${test.expect.rows.length} row(s)`;
  if (answer.error) {
    const error = { code: answer.error.code, ...(answer.error.param === undefined ? {} : { param: answer.error.param }) };
    expect.delete('rows');
    expect.set('error', doc.createNode(error, { flow: true }));
    return `${before} -> error ${errorText(error)}`;
  }
  if (test.expect.kind === 'error') {
    expect.delete('error');
    const template = wholeOrAsWritten([], answer.rows, fix);
    expect.set('rows', rowSequence(doc, answer.rows.map((row) => rowNode(doc, shownLike(row, template)))));
    return `${before} -> ${answer.rows.length} row(s)`;
  }
  const expected = test.expect.rows;
  const template = wholeOrAsWritten(expected, answer.rows, fix);
  const node = expect.get('rows', true);
  const old = isSeq(node) ? node.items : [];
  const items: unknown[] = [];
  let [changed, added, removed] = [0, 0, 0];
  let index = 0;
  // Rows gone since the last row kept: each new row in their run takes the place of one, in order.
  let gone: { commentBefore?: string | null; comment?: string | null }[] = [];
  for (const step of diffSequences(expected, answer.rows, (a: JsonObject, b: WireRow) => matches(a, b))) {
    if (step.kind === 'same') {
      items.push(old[index]);
      index += 1;
      gone = [];
    } else if (step.kind === 'removed') {
      gone.push(old[index] as (typeof gone)[number]);
      index += 1;
      removed += 1;
    } else {
      const created = rowNode(doc, shownLike(step.b, template));
      const replaced = gone.shift();
      // The row it stands in for keeps its comments: they say what the row is for.
      if (replaced) {
        created.commentBefore = replaced.commentBefore ?? undefined;
        created.comment = replaced.comment ?? undefined;
        [changed, removed] = [changed + 1, removed - 1];
      } else {
        added += 1;
      }
      items.push(created);
    }
  }
  if (isSeq(node)) {
    node.items = items;
    node.flow = items.length === 0 || (node.flow === true && fitsOneLine(node));
  } else {
    expect.set('rows', rowSequence(doc, items));
  }
  const counts = [[changed, 'changed'], [added, 'added'], [removed, 'removed']].filter(([count]) => count !== 0).map(([count, word]) => `${count} ${word}`);
  return `rows: ${counts.join(', ')} (${before} -> ${answer.rows.length} row(s))`;
}

/**
 * The columns a rewritten row shows: those the test's rows check, while the answer still has
 * them all; otherwise (no rows written yet, or a checked column gone) the whole row.
 */
function wholeOrAsWritten(expected: readonly JsonObject[], actual: readonly WireRow[], fix: TestFix): Template {
  const written = templateOf(expected);
  const first = actual[0];
  const checked = written.kind === 'object' ? [...written.fields.keys()] : [];
  if (checked.length > 0 && (first === undefined || checked.every((column) => Object.hasOwn(first, column)))) return written;
  // Sandbox SQL picks its own columns: the endpoint's do not say how to write them.
  return (fix.test.request.sql === undefined ? fix.wholeRows : undefined) ?? { kind: 'value' };
}

/** A row as the test files write one: `{id: a-1, timestamp: "2024-05-01T11:00:00Z"}`, dates and times quoted. */
function rowNode(doc: Document, row: unknown): Node {
  const node = doc.createNode(row, { flow: true });
  visit(node, {
    Scalar(_, scalar) {
      // Plain, a YAML 1.1 reader (and many editors) would take them for timestamps.
      if (typeof scalar.value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(scalar.value)) scalar.type = Scalar.QUOTE_DOUBLE;
    },
  });
  return node;
}

function rowSequence(doc: Document, items: unknown[]): YAMLSeq {
  const sequence = doc.createNode([]) as YAMLSeq;
  sequence.items = items;
  sequence.flow = items.length === 0;
  return sequence;
}

type Ranged = { range?: [number, number, number] | null };

/**
 * Where the expect map's own text is: from its first key to the end of the line of its last value.
 * The comments around it (after `expect:`, on the lines after the last row, before the next test)
 * are outside, and stay where they are: they are taken off the nodes, which would otherwise write
 * them again.
 */
function regionOf(text: string, map: YAMLMap): { start: number; end: number } {
  map.commentBefore = undefined;
  if (map.flow) {
    // A flow map's comment follows it on its line, outside the region.
    map.comment = undefined;
    return { start: map.range![0], end: map.range![1] };
  }
  let last: unknown = map;
  while (isCollection(last) && !last.flow && last.items.length > 0) {
    last.comment = undefined;
    const item = last.items.at(-1);
    last = isPair(item) ? (item.value ?? item.key) : item;
  }
  const lineEnd = text.indexOf('\n', (last as Ranged).range![1]);
  return { start: map.range![0], end: lineEnd === -1 ? text.length : lineEnd };
}

/** Whether a flow collection, written on one line, fits ONE_LINE. */
function fitsOneLine(node: Node): boolean {
  const text = new Document(node).toString(STYLE).trimEnd();
  return !text.includes('\n') && text.length <= ONE_LINE;
}

/**
 * The text that replaces the expect map: a block map in place, indented where it was; a flow map
 * in place while it fits on its line, else as a block under `expect:`.
 */
function spliced(text: string, pair: Pair<Ranged, YAMLMap>, { start, end }: { start: number; end: number }): Edit {
  const map = pair.value!;
  const render = () => new Document(map).toString(STYLE).trimEnd();
  if (!map.flow) return { start, end, text: indented(render(), columnOf(text, start)) };
  const rows = map.get('rows', true);
  if (!isSeq(rows) || rows.items.length === 0 || fitsOneLine(map)) return { start, end, text: render() };
  map.flow = false;
  const column = columnOf(text, pair.key!.range![0]) + 2;
  return { start: pair.key!.range![1], end, text: `:\n${' '.repeat(column)}${indented(render(), column)}` };
}

function columnOf(text: string, offset: number): number {
  return offset - (text.lastIndexOf('\n', offset - 1) + 1);
}

/** Every line but the first (which continues where the old text started) indented by `column`. */
function indented(rendered: string, column: number): string {
  const pad = ' '.repeat(column);
  return rendered.replace(/\n(?=.)/g, `\n${pad}`);
}
