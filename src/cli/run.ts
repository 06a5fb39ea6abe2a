/** `cannery run NAME key=value ...`: one endpoint, result as JSON on stdout. */
import { isCanneryError } from '../core/errors.js';
import { openService } from './open-service.js';
import type { Command } from './command.js';
import { settingsWithFlags } from './flags.js';

export const runCommand: Command = {
  options: { endpoints: { type: 'string' }, db: { type: 'string' }, 'redact-pii': { type: 'boolean' } },
  async run(flags, positionals) {
    const [name, ...assignments] = positionals;
    if (!name) throw new Error('usage: cannery run NAME [key=value ...] [--redact-pii]');
    const params = assignments.map((assignment): [string, string] => {
      const equals = assignment.indexOf('=');
      if (equals < 1) throw new Error(`expected key=value, got "${assignment}"`);
      return [assignment.slice(0, equals), assignment.slice(equals + 1)];
    });
    const service = await openService(settingsWithFlags(flags));
    try {
      const outcome = await service.query(service.resolve(name), params, { redactPii: flags['redact-pii'] === true });
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
