/**
 * `cannery keys new NAME [--endpoint E]... [--param k=v]... [--expires T] [--rate N] [--ingest S]...`: a fresh
 * random key, printed once, and the keys file entry that stores only its SHA-256. Nothing is
 * written anywhere: the key goes to whoever will use it, the entry into the keys file.
 */
import { randomBytes } from 'node:crypto';
import { stringify } from '#yaml';
import { keyDigest } from '../access/keys.js';
import { parseKeysFile, zonedTimeMs } from '../config/keys-file.js';
import { UsageError, type Command } from './command.js';
import { checkName, durationSeconds, SCOPE_OPTIONS, scopeFlags } from './scope-flags.js';

export const keysCommand: Command = {
  options: { ...SCOPE_OPTIONS, expires: { type: 'string' } },
  async run(flags, positionals) {
    const [action, name, ...rest] = positionals;
    if (action !== 'new' || !name || rest.length > 0) throw new UsageError();
    checkName(name);
    const scope = scopeFlags(flags);
    const key = randomBytes(32).toString('base64url');
    const entry: Record<string, unknown> = { name, sha256: keyDigest(key), endpoints: scope.endpoints };
    if (Object.keys(scope.params).length > 0) entry.params = scope.params;
    if (typeof flags.expires === 'string') entry.expires_at = expiry(flags.expires);
    if (scope.ratePerSecond !== undefined) entry.rate_per_second = scope.ratePerSecond;
    if (scope.ingest.length > 0) entry.ingest = scope.ingest;
    const text = stringify({ keys: [entry] }, { flowCollectionPadding: false });
    // What the keys file will read: an entry it would refuse is refused here.
    const [problem] = parseKeysFile(text, 'keys new').problems;
    if (problem) throw new Error(problem.message);
    console.log(`key (shown once, stored nowhere; give it to its holder now):\n\n  ${key}\n`);
    console.log(`entry for the keys file (CANNERY_KEYS_FILE), under keys:\n\n${text.split('\n').slice(1).join('\n')}`);
    return 0;
  },
};

/** An ISO 8601 timestamp with its zone, or a length of time from now (`30d`). */
function expiry(text: string): string {
  if (/^\d+[smhd]$/.test(text)) return new Date(Date.now() + durationSeconds('expires', text) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (zonedTimeMs(text) === undefined || !/(Z|[+-]\d{2}:\d{2})$/.test(text)) {
    throw new Error(`--expires is an ISO 8601 timestamp with Z or an offset, such as 2027-01-01T00:00:00Z, or a length of time such as 30d (got "${text}")`);
  }
  return text;
}
