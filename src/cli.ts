#!/usr/bin/env node
/** `cannery`: serve | check | test | diff | describe | new | init | run | import | compact | seed | openapi | keys | token. A thin shell over config, engine and backends. */
import { parseArgs } from 'node:util';
import { DatabaseBusy } from './backends/duckdb/lock.js';
import { commands } from './cli/command-table.js';

const USAGE = `usage: cannery <command> [options]

commands:
  serve    [--endpoints DIR] [--db FILE] [--port N] [--host H] [--demo]
           serve every endpoint over HTTP (--demo: seed the database first if it does not exist,
           keep its demo data current while serving, and keep a generated key beside it)
  check    [--endpoints DIR] [--backend all|duckdb|bigquery] [--format text|json|github] [--dry-run]
           validate every endpoint file and compile its SQL for each backend, and the endpoint
           tests; exit 1 on any problem
           (--dry-run: also dry-run each endpoint on BigQuery and print the bytes it would scan)
  test     [--endpoints DIR] [--filter TEXT] [--format text|github] [--junit FILE] [--update]
           run the endpoint tests in DIR/tests, each on a fresh in-memory DuckDB; exit 1 on any failure
           (--update: rewrite what each failing test expects from what its endpoint answers now)
  diff     [--base REF] [--endpoints DIR] [--format text|markdown] [--fail-on breaking]
           what the working tree changes in each endpoint's contract and rows, against REF
           (default: the merge base with the default branch); exit 1 on a breaking change with --fail-on
  describe NAME [--endpoints DIR] [--format text|json]
           an endpoint's parameters and result columns, with their types
  new      NAME [--endpoints DIR]
           write a new endpoint file and its test file from a commented template
  init     in one's own repository: write endpoints/ with an example endpoint and its tests,
           and .github/workflows/cannery.yml (check, test and diff on every pull request)
  run      NAME [key=value ...] [--endpoints DIR] [--db FILE] [--redact-pii]
           run one endpoint and print its result as JSON (--redact-pii: as with SVC-ENDPOINT-REDACT-PII: true)
  import   --db FILE --source NAME [FILE.ndjson | -] [--max-line-bytes N] [--replace-invalid-utf8] [--memory-limit SIZE]
           load NDJSON log events into a source's table, creating or widening it, all or nothing;
           the same input again is a no-op
  compact  --db FILE
           rewrite every source table in the current storage layout, in time order (server stopped)
  openapi  [--endpoints DIR]
           print the OpenAPI 3.1 description of the endpoints
  seed     --db FILE [--events N] [--now TIME] [--memory-limit SIZE]
           write realistic demo data for all nine sources (N edge events, default 50000, over
           the week before TIME, default now)
  keys     new NAME [--endpoint E]... [--param name=value]... [--expires TIME|30d] [--rate N]
           print a fresh random key once, and its entry for the keys file (CANNERY_KEYS_FILE)
  token    [--endpoint E]... [--param name=value]... [--ttl 1h] [--name N] [--rate N]
           print a signed token (HS256, CANNERY_JWT_SECRET) with these scopes, for testing

settings come from the environment too; see docs/settings.md.`;

/**
 * A reader that stops early (`cannery run ... | head -1`) closes the pipe, and node reports the
 * next write as an EPIPE error on the stream, which unhandled was a stack trace. The rest of the
 * output has no one to read it: it is dropped (after EPIPE the stream is destroyed, and a later
 * write fails ERR_STREAM_DESTROYED), and the command ends as it would have, with its exit code,
 * so a database it was writing is left as a finished command leaves it.
 */
const READER_GONE = new Set(['EPIPE', 'ERR_STREAM_DESTROYED']);
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (!READER_GONE.has(error.code ?? '')) throw error;
  });
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(USAGE);
    return name === undefined ? 1 : 0;
  }
  const load = commands[name];
  if (!load) {
    console.error(`cannery: unknown command "${name}"\n\n${USAGE}`);
    return 1;
  }
  const command = await load();
  const { values, positionals } = parseArgs({ args: rest, options: command.options, allowPositionals: true, strict: true });
  return command.run(values as Record<string, string | boolean | undefined>, positionals);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== -1) process.exitCode = code;
  },
  async (error: unknown) => {
    if (error instanceof DatabaseBusy) {
      const { databaseBusyText } = await import('./cli/database-busy.js');
      console.error(`cannery: ${databaseBusyText(error, process.argv[2]!)}`);
    } else {
      console.error(`cannery: ${error instanceof Error ? error.message : String(error)}`);
    }
    process.exitCode = 1;
  },
);
