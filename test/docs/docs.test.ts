/**
 * Docs tested like code (docs/development.md): every shell block of README.md and docs/*.md runs as
 * written, page by page, and every output a page shows is compared with the run's, volatile parts
 * masked; every YAML example passes its check (or fails it where the page says it must). With
 * DOCS_UPDATE=1 (`npm run docs:update`) the shown outputs that differ are rewritten from the run.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseKeysFile } from '../../src/config/keys-file.js';
import { parseSourceFile } from '../../src/config/source-files.js';
import { cannery } from '../support/cannery-cli.js';
import { ROOT, runPage, scratchEndpoints, writePage, yamlBlocks, type BlockResult } from '../support/doc-runner.js';
import type { Block } from '../support/doc-pages.js';

const UPDATE = process.env.DOCS_UPDATE === '1';
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];

const shell: BlockResult[] = [];
const yaml = { checked: 0, notRun: [] as string[] };

afterAll(() => {
  const run = shell.filter((result) => result.kind === 'run');
  const notRun = shell.filter((result) => result.kind === 'not-run');
  const compared = run.reduce((sum, result) => sum + result.compared, 0);
  const lines = [
    `docs: ${run.length} shell block(s) run, ${run.filter((result) => result.compared > 0).length} of them compared with the output they show (${compared} command(s)); ${notRun.length} not runnable here:`,
    ...notRun.map((result) => `  ${result.page}:${result.line}: ${result.reason}`),
    `docs: ${yaml.checked} YAML example(s) checked, ${yaml.notRun.length} not checkable:`,
    ...yaml.notRun.map((line) => `  ${line}`),
  ];
  console.log(lines.join('\n'));
});

describe('the shell blocks of every page, as written', () => {
  it.concurrent.each(PAGES)('%s', async (page) => {
    const { results, updated } = await runPage(page);
    shell.push(...results);
    // A page with a failing command is not rewritten: its outputs would show the failure.
    if (UPDATE && results.every((result) => result.failures.length === 0)) writePage(page, updated);
    const problems = results.flatMap((result) => [...result.failures, ...(UPDATE ? [] : result.mismatches)].map((text) => `${page}:${result.line}: ${text}`));
    expect(problems.join('\n\n')).toBe('');
    // A page is many commands, each bounded on its own (doc-runner.ts); on a loaded machine the
    // longest page (testing-endpoints.md: the endpoint tests seven times) took 125 s.
  }, 480_000);
});

/** What a YAML example is, by its top-level keys; undefined: the page must say (not-run). */
function yamlKind(block: Block): 'endpoint' | 'tests' | 'keys' | 'source' | undefined {
  const top = new Set(block.body.map((line) => /^([a-z_]+):/.exec(line)?.[1]).filter(Boolean));
  if (top.has('keys')) return 'keys';
  if (top.has('tests') && top.has('endpoint')) return 'tests';
  if (top.has('query') && top.has('name')) return 'endpoint';
  if (top.has('columns') && top.has('name')) return 'source';
  return undefined;
}

/**
 * The sources the pages declare (docs/sources.md's shop.orders): an endpoint example over one is
 * checked with them declared, as the page's own folder would have them.
 */
function declaredSources(): { name: string; text: string }[] {
  return PAGES.flatMap((page) => yamlBlocks(page))
    .filter((block) => block.notRun === undefined && !block.mustFail && yamlKind(block) === 'source')
    .map((block) => ({ name: /^name:\s*(\S+)/m.exec(block.body.join('\n'))![1]!, text: `${block.body.join('\n')}\n` }));
}

/** The problems `check` finds with the example beside the shipped endpoints and the declared sources (a keys or source file: its parser's). */
async function problemsOf(kind: 'endpoint' | 'tests' | 'keys' | 'source', block: Block, where: string): Promise<string> {
  const text = `${block.body.join('\n')}\n`;
  if (kind === 'keys') return parseKeysFile(text, where).problems.map((problem) => `${problem.line}: ${problem.message}`).join('\n');
  if (kind === 'source') return parseSourceFile(text, where).problems.map((problem) => `${problem.line}: ${problem.message}`).join('\n');
  const dir = scratchEndpoints();
  try {
    const file = kind === 'tests' ? join(dir, 'endpoints', 'tests', 'docs-example.yaml') : join(dir, 'endpoints', 'docs-example.yaml');
    mkdirSync(join(dir, 'endpoints', 'tests'), { recursive: true });
    mkdirSync(join(dir, 'sources'));
    for (const source of declaredSources()) writeFileSync(join(dir, 'sources', `${source.name}.yaml`), source.text);
    writeFileSync(file, text);
    const run = await cannery(['check', '--endpoints', join(dir, 'endpoints')]);
    return run.code === 0 ? '' : `${run.stdout}${run.stderr}`.trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('every YAML example passes its check, or fails it where the page says so', () => {
  const blocks = PAGES.flatMap((page) => yamlBlocks(page).map((block) => ({ page, block })));
  it.concurrent.each(blocks.map(({ page, block }) => [`${page}:${block.line}`, block] as const))('%s', async (where, block) => {
    if (block.notRun !== undefined) {
      yaml.notRun.push(`${where}: ${block.notRun}`);
      return;
    }
    const kind = yamlKind(block);
    expect(kind, `${where}: not an endpoint, test or keys file: mark it <!-- not-run: REASON --> (a fragment, a workflow, ...)`).toBeDefined();
    yaml.checked++;
    const problems = await problemsOf(kind!, block, where);
    if (block.mustFail) expect(problems, `${where} is marked to fail its check`).not.toBe('');
    else expect(problems).toBe('');
  });
});
