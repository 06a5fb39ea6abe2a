/** `cannery run NAME key=value ...`: one endpoint, result as JSON on stdout. */
import { DatabaseBusy } from '../backends/duckdb/lock.js';
import { isCanneryError } from '../core/errors.js';
import { openService } from './open-service.js';
import { UsageError, type Command } from './command.js';
import { settingsWithFlags } from './flags.js';
import { findHoldingServer } from './server-record.js';
import { runThroughServer } from './run-through-server.js';

export const runCommand: Command = {
  options: { endpoints: { type: 'string' }, db: { type: 'string' }, 'redact-pii': { type: 'boolean' }, key: { type: 'string' } },
  async run(flags, positionals) {
    const [name, ...assignments] = positionals;
    if (!name) throw new UsageError();
    const params = assignments.map((assignment): [string, string] => {
      const equals = assignment.indexOf('=');
      if (equals < 1) throw new Error(`expected key=value, got "${assignment}"`);
      return [assignment.slice(0, equals), assignment.slice(equals + 1)];
    });
    const settings = settingsWithFlags(flags);
    const redactPii = flags['redact-pii'] === true;
    let service: Awaited<ReturnType<typeof openService>>;
    try {
      service = await openService(settings);
    } catch (error) {
      // A `serve` that writes the file (the demo's live events) holds it for itself: it answers instead.
      const server = error instanceof DatabaseBusy ? await findHoldingServer(error.path, error.holder) : undefined;
      if (!server) throw error;
      const key = typeof flags.key === 'string' ? flags.key : settings.callerKey;
      return runThroughServer({ server, settings, busy: error as DatabaseBusy, name, params, redactPii, key });
    }
    try {
      const outcome = await service.query(service.resolve(name), params, { redactPii });
      // The service's encoded body as is: exactly what the HTTP API sends.
      process.stdout.write(outcome.body);
      process.stdout.write('\n');
      return 0;
    } catch (error) {
      if (!isCanneryError(error)) throw error;
      console.error(JSON.stringify({ error: { code: error.code, message: error.message, param: error.param } }));
      return 1;
    } finally {
      await service.close();
      await service.backend.close();
    }
  },
};
