/**
 * The CLI's command table (command.ts says what a command is): each command's synopsis and what
 * it does, which `cannery --help`, `cannery <command> --help`, a command's usage error and
 * docs/settings.md's command list (written by `npm run docs:update`) all print, and its module.
 * test/cli/help.test.ts holds each synopsis to the flags its command parses.
 */
import type { Command } from './command.js';

export interface CommandRow {
  name: string;
  /** Arguments and flags, as typed after the command's name. */
  synopsis: string;
  /** What it does, in a line or a few. */
  summary: string[];
  /** The command's module, loaded when it runs: `check` never loads DuckDB, the HTTP stack or the BigQuery client. */
  load: () => Promise<Command>;
}

export const commandTable: readonly CommandRow[] = [
  {
    name: 'serve',
    synopsis: '[--endpoints DIR] [--db FILE] [--port N] [--host H] [--demo]',
    summary: [
      'serve every endpoint over HTTP (--demo: seed the database first if it does not exist,',
      'keep its demo data current while serving, and keep a generated key beside it)',
    ],
    load: async () => (await import('./serve.js')).serveCommand,
  },
  {
    name: 'check',
    synopsis: '[--endpoints DIR] [--sources DIR] [--backend all|duckdb|bigquery] [--format text|json|github] [--dry-run]',
    summary: [
      'validate every endpoint file and compile its SQL for each backend, and the endpoint',
      'tests; exit 1 on any problem',
      '(--dry-run: also hold each declared source against its BigQuery table, naming every',
      'difference, and dry-run each endpoint on BigQuery and print the bytes it would scan)',
    ],
    load: async () => (await import('./check.js')).checkCommand,
  },
  {
    name: 'test',
    synopsis: '[--endpoints DIR] [--sources DIR] [--filter TEXT] [--format text|github] [--junit FILE] [--update]',
    summary: [
      'run the endpoint tests in DIR/tests, each on a fresh in-memory DuckDB; exit 1 on any failure',
      '(--update: rewrite what each failing test expects from what its endpoint answers now)',
    ],
    load: async () => (await import('./test.js')).testCommand,
  },
  {
    name: 'diff',
    synopsis: '[--base REF] [--endpoints DIR] [--sources DIR] [--format text|markdown] [--fail-on breaking]',
    summary: [
      "what the working tree changes in each endpoint's contract and rows, and in each source, against REF",
      '(default: the merge base with the default branch); exit 1 on a breaking change with --fail-on',
    ],
    load: async () => (await import('./diff.js')).diffCommand,
  },
  {
    name: 'describe',
    synopsis: 'NAME [--endpoints DIR] [--sources DIR] [--format text|json]',
    summary: ["an endpoint's parameters and result columns, with their types"],
    load: async () => (await import('./describe.js')).describeCommand,
  },
  {
    name: 'new',
    synopsis: 'NAME [--endpoints DIR] [--sources DIR] [--source NAME]',
    summary: [
      'write a new endpoint file and its test file from a commented template, over --source',
      "(default: the project's first declared source, else the edge logs)",
    ],
    load: async () => (await import('./new.js')).newCommand,
  },
  {
    name: 'init',
    synopsis: '',
    summary: [
      "in one's own repository: write endpoints/ with an example endpoint and its tests,",
      'sources/ with an example source and an endpoint over it, and',
      '.github/workflows/cannery.yml (check, test and diff on every pull request)',
    ],
    load: async () => (await import('./init.js')).initCommand,
  },
  {
    name: 'run',
    synopsis: 'NAME [key=value ...] [--endpoints DIR] [--db FILE] [--redact-pii] [--key KEY]',
    summary: [
      'run one endpoint and print its result as JSON (--redact-pii: as with SVC-ENDPOINT-REDACT-PII: true)',
      '(beside a `serve` that writes the database, asked through that server, with --key or CANNERY_KEY if it needs one)',
    ],
    load: async () => (await import('./run.js')).runCommand,
  },
  {
    name: 'import',
    synopsis: '--source NAME [FILE | -] [--db FILE] [--format F] [--sources DIR] [--max-line-bytes N] [--replace-invalid-utf8] [--memory-limit SIZE]',
    summary: [
      "load NDJSON log events, or a declared source's NDJSON, CSV or Parquet file (gzip too),",
      "into the source's table, all or nothing; the same input again is a no-op",
    ],
    load: async () => (await import('./import.js')).importCommand,
  },
  {
    name: 'sources',
    synopsis: 'infer FILE [--name NAME] [--format F] | pull PROJECT.DATASET.TABLE [--name NAME] | drop NAME [--db FILE] | list [--endpoints DIR] [--sources DIR]',
    summary: [
      'infer: print a source file (sources/*.yaml) for a sample CSV, NDJSON or Parquet file;',
      "pull: print one for a BigQuery table, from its schema;",
      "drop: remove a declared source's table and its imports, to load it afresh;",
      "list: every source's UUID (Logflare's source=) and name",
    ],
    load: async () => (await import('./sources.js')).sourcesCommand,
  },
  {
    name: 'compact',
    synopsis: '[--db FILE] [--sources DIR]',
    summary: [
      'rewrite every log source table in the current storage layout, in time order, and every',
      "declared source's table with a time_column in that column's order (server stopped)",
    ],
    load: async () => (await import('./compact.js')).compactCommand,
  },
  {
    name: 'seed',
    synopsis: '[--db FILE] [--events N] [--now TIME] [--memory-limit SIZE]',
    summary: [
      'write realistic demo data for all nine sources (N edge events, default 50000, over',
      'the week before TIME, default now)',
    ],
    load: async () => (await import('./seed.js')).seedCommand,
  },
  {
    name: 'openapi',
    synopsis: '[--endpoints DIR] [--sources DIR]',
    summary: ['print the OpenAPI 3.1 description of the endpoints'],
    load: async () => (await import('./openapi.js')).openapiCommand,
  },
  {
    name: 'keys',
    synopsis: 'new NAME [--endpoint E]... [--param name=value]... [--expires TIME|30d] [--rate N] [--ingest SOURCE]...',
    summary: ['print a fresh random key once, and its entry for the keys file (CANNERY_KEYS_FILE)'],
    load: async () => (await import('./keys.js')).keysCommand,
  },
  {
    name: 'token',
    synopsis: '[--endpoint E]... [--param name=value]... [--ttl 1h] [--name N] [--rate N] [--ingest SOURCE]...',
    summary: ['print a signed token (HS256, CANNERY_JWT_SECRET) with these scopes, for testing'],
    load: async () => (await import('./token.js')).tokenCommand,
  },
];

export function findCommand(name: string): CommandRow | undefined {
  return commandTable.find((row) => row.name === name);
}

const SEE_SETTINGS = 'settings come from the environment too; see docs/settings.md.';

/** `cannery --help`: every command, its synopsis and what it does. */
export function usageText(): string {
  const rows = commandTable.map((row) => [`  ${row.name.padEnd(8)} ${row.synopsis}`.trimEnd(), ...row.summary.map((line) => `           ${line}`)].join('\n'));
  return `usage: cannery <command> [options]\n\ncommands:\n${rows.join('\n')}\n\n${SEE_SETTINGS}`;
}

/** `cannery NAME SYNOPSIS`: the command's line in its help, its usage error and docs/settings.md. */
export function commandLine(row: CommandRow): string {
  return `cannery ${row.name} ${row.synopsis}`.trimEnd();
}

/** `cannery <command> --help`. */
export function commandHelpText(row: CommandRow): string {
  return `usage: ${commandLine(row)}\n\n${row.summary.join('\n')}\n\n${SEE_SETTINGS}`;
}

/** docs/settings.md's command list: one line per command. */
export function commandListText(): string {
  return commandTable.map((row) => `cannery ${row.name.padEnd(8)} ${row.synopsis}`.trimEnd()).join('\n');
}
