/** `cannery diff` as text for a terminal, and as Markdown for a pull-request comment. */
import type { Problem } from '../core/types.js';
import type { Change } from '../engine/contracts/contract-diff.js';
import type { EndpointDiff, RowDifference } from '../engine/contracts/endpoint-diff.js';
import type { SourceChange, SourceDiff } from '../engine/contracts/source-diff.js';

export interface DiffReport {
  /** The endpoints folder compared. */
  dir: string;
  base: { label: string; commit: string };
  /** The declared sources that changed, first: what the endpoints' changes below may come from. */
  sources: SourceDiff[];
  diffs: EndpointDiff[];
  /** Problems of the working tree's files (what `cannery check` reports). */
  problems: Problem[];
}

/** Marks the comment, so a workflow can find and update its own instead of adding one per push. */
export const MARKDOWN_MARKER = '<!-- cannery diff -->';

/** Diff lines of one test shown in Markdown at most; the text form shows them all. */
const MARKDOWN_ROW_LINES = 30;
/** GitHub refuses comments over 65,536 characters. */
const MARKDOWN_MAX = 60_000;

export function breakingCount(report: DiffReport): number {
  return report.diffs.reduce((sum, diff) => sum + diff.changes.filter((change) => change.compatibility === 'breaking').length, 0);
}

function totals(report: DiffReport): string {
  const sources = report.sources.length ? `${report.sources.length} source(s) changed; ` : '';
  if (!report.diffs.length) return `${sources}no endpoint changed`;
  const all = report.diffs.reduce((sum, diff) => sum + diff.changes.length, 0);
  const breaking = breakingCount(report);
  return `${sources}${report.diffs.length} endpoint(s) changed: ${breaking} breaking change(s), ${all - breaking} compatible`;
}

/** A source change is breaking where an endpoint reads what it removes or retypes. */
function sourceChangeText(change: SourceChange): { breaking: boolean; text: string } {
  if (change.readBy.length) return { breaking: true, text: `${change.message}: read by ${change.readBy.join(', ')}` };
  return { breaking: false, text: change.breaksReaders ? `${change.message}: no endpoint reads it` : change.message };
}

function sourceLines(diff: SourceDiff): string[] {
  return [
    `source ${diff.name}: ${diff.status} (${diff.file})`,
    ...diff.changes.map(sourceChangeText).map(({ breaking, text }) => `  ${(breaking ? 'breaking' : 'compatible').padEnd(11)}${text}`),
    '',
  ];
}

function baseText(report: DiffReport): string {
  return `${report.base.label} (${report.base.commit.slice(0, 7)})`;
}

function differing(rows: readonly RowDifference[]): RowDifference[] {
  return rows.filter((row) => row.differs);
}

/** `3 of 5 test(s) answer differently; \`cannery test\` fails 2`: a test may check fewer columns than changed. */
function rowsSummary(rows: readonly RowDifference[]): string {
  const fails = rows.filter((row) => row.fails).length;
  return `${differing(rows).length} of ${rows.length} test(s) answer differently; \`cannery test\` fails ${fails}`;
}

function rowHeading(row: RowDifference): string {
  return `${row.before} before, ${row.after} now${row.fails ? ' (fails as written)' : ''}`;
}

export function diffText(report: DiffReport): string {
  const lines = [`cannery diff: ${report.dir} against ${baseText(report)}`, ''];
  for (const problem of report.problems) lines.push(`${problem.file}:${problem.line}: ${problem.message}`);
  if (report.problems.length) lines.push('');
  for (const diff of report.sources) lines.push(...sourceLines(diff));
  for (const diff of report.diffs) {
    lines.push(`${diff.name}: ${diff.status} (${diff.file})`);
    for (const change of diff.changes) lines.push(`  ${change.compatibility.padEnd(11)}${change.message}`);
    if (diff.rows.length) {
      const changed = differing(diff.rows);
      lines.push(`  rows on the tests' inputs: ${rowsSummary(diff.rows)}`);
      for (const row of changed) {
        lines.push(`    ${row.test} (${row.file}:${row.line}): ${rowHeading(row)}`);
        lines.push(...row.lines.map((line) => `      ${line}`));
      }
    }
    lines.push('');
  }
  lines.push(totals(report));
  return lines.join('\n');
}

export function diffMarkdown(report: DiffReport): string {
  const breaking = breakingCount(report);
  const head = [
    MARKDOWN_MARKER,
    `### cannery diff: ${breaking ? `⚠️ ${breaking} breaking change(s)` : 'no breaking change'}`,
    '',
    `Endpoints in \`${report.dir}\` against ${report.base.label} (\`${report.base.commit.slice(0, 7)}\`): ${totals(report)}.`,
  ];
  if (report.problems.length) {
    head.push('', '**Problems** (`cannery check`):', '', ...report.problems.map((problem) => `- \`${problem.file}:${problem.line}\`: ${escapeMarkdown(problem.message)}`));
  }
  const sections = [...report.sources.map(sourceMarkdown), ...report.diffs.map(endpointMarkdown)];
  let body = [...head, ...sections].join('\n');
  if (body.length > MARKDOWN_MAX) {
    body = `${body.slice(0, MARKDOWN_MAX)}\n\n… cut here: the rest is in the job's log (\`cannery diff\` as text).`;
  }
  return `${body}\n`;
}

function endpointMarkdown(diff: EndpointDiff): string {
  const breaking = diff.changes.some((change) => change.compatibility === 'breaking');
  const lines = ['', `#### \`${diff.name}\`: ${diff.status}${breaking ? ', **breaking**' : ''}`, '', `\`${diff.file}\``, ''];
  lines.push('| | change |', '|---|---|', ...diff.changes.map(changeRow));
  const changed = differing(diff.rows);
  if (diff.rows.length) {
    lines.push('', `<details${changed.length ? ' open' : ''}><summary>Rows on the tests' inputs: ${escapeMarkdown(rowsSummary(diff.rows))}</summary>`, '');
    for (const row of changed) {
      lines.push(`**${escapeMarkdown(row.test)}** (\`${row.file}:${row.line}\`): ${rowHeading(row)}`, '', '```diff');
      lines.push(...row.lines.slice(0, MARKDOWN_ROW_LINES));
      if (row.lines.length > MARKDOWN_ROW_LINES) lines.push(`  … ${row.lines.length - MARKDOWN_ROW_LINES} more line(s)`);
      lines.push('```', '');
    }
    lines.push('</details>');
  }
  return lines.join('\n');
}

function sourceMarkdown(diff: SourceDiff): string {
  const rows = diff.changes.map(sourceChangeText);
  const breaking = rows.some((row) => row.breaking);
  const lines = ['', `#### source \`${diff.name}\`: ${diff.status}${breaking ? ', **breaking**' : ''}`, '', `\`${diff.file}\``, ''];
  lines.push('| | change |', '|---|---|', ...rows.map((row) => `| ${row.breaking ? '**breaking**' : 'compatible'} | ${escapeMarkdown(row.text)} |`));
  return lines.join('\n');
}

function changeRow(change: Change): string {
  return `| ${change.compatibility === 'breaking' ? '**breaking**' : 'compatible'} | ${escapeMarkdown(change.message)} |`;
}

/** Table cells and prose: pipes would split a cell, and < could open HTML. */
function escapeMarkdown(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/\n/g, ' ');
}
