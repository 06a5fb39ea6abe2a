/**
 * `cannery token [--endpoint E]... [--param k=v]... [--ttl 1h] [--name N] [--rate N] [--ingest S]...`: an HS256
 * token signed with CANNERY_JWT_SECRET, for trying scopes out; an app's backend mints its own
 * the same way (docs/access.md).
 */
import { signToken } from '../access/tokens.js';
import { durationText } from '../config/durations.js';
import { readSettings } from '../config/settings.js';
import { UsageError, type Command } from './command.js';
import { checkName, durationSeconds, SCOPE_OPTIONS, scopeFlags } from './scope-flags.js';

export const tokenCommand: Command = {
  options: { ...SCOPE_OPTIONS, ttl: { type: 'string' }, name: { type: 'string' } },
  async run(flags, positionals) {
    if (positionals.length > 0) throw new UsageError();
    const { jwtSecret, jwtMaxTtlSeconds } = readSettings();
    if (jwtSecret === undefined) throw new Error('CANNERY_JWT_SECRET is not set: tokens are signed with it (and the service verifies them with it)');
    const ttl = typeof flags.ttl === 'string' ? flags.ttl : '1h';
    const ttlSeconds = durationSeconds('ttl', ttl);
    // The service would refuse it (access/tokens.ts): better said here than by a 401 later.
    if (ttlSeconds > jwtMaxTtlSeconds) {
      throw new Error(`--ttl ${ttl} is longer than CANNERY_JWT_MAX_TTL (${durationText(jwtMaxTtlSeconds)}), and the service would refuse the token; mint a shorter one, or raise CANNERY_JWT_MAX_TTL where the service runs too`);
    }
    const scope = scopeFlags(flags);
    const name = typeof flags.name === 'string' ? flags.name : undefined;
    if (name !== undefined) checkName(name);
    const token = await signToken(jwtSecret, {
      scopes: scope.endpoints.map((endpoint) => ({ endpoint, params: scope.params })),
      ttlSeconds,
      name,
      ratePerSecond: scope.ratePerSecond,
      ...(scope.ingest.length > 0 ? { ingest: scope.ingest } : {}),
    });
    console.log(token);
    return 0;
  },
};
