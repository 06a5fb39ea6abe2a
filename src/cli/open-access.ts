/** Who may call the service, from settings: CANNERY_API_KEYS, the keys file (re-read while serving), the token keys. */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { createAccess, type Access } from '../access/access.js';
import { startKeysReload, type KeysReload } from '../access/keys-reload.js';
import { loadJwksFile } from '../config/jwks-file.js';
import { loadKeysFile } from '../config/keys-file.js';
import { formatProblem } from '../config/problem-line.js';
import type { Settings } from '../config/settings.js';

export interface OpenedAccess {
  access: Access;
  /** A key made when nothing else lets anyone in: printed, and kept only in `keptKeyFile`. */
  generatedKey?: string;
  /** The keys file's watch; absent without a keys file. */
  keysReload?: KeysReload;
}

/**
 * `keptKeyFile`: where a generated key is kept and read back on the next start (the demo's, beside
 * its database), so the curl lines a first run printed keep working; without it a key lives for one run.
 */
export async function openAccess(settings: Settings, log: (line: string) => void, keptKeyFile?: string): Promise<OpenedAccess> {
  const keys = settings.keysFile === undefined ? undefined : await loadKeysFile(settings.keysFile);
  if (keys && !keys.keys) throw new Error(`the keys file has problems:\n${keys.problems.map(formatProblem).join('\n')}`);
  const jwks = settings.jwtJwksFile === undefined ? undefined : await loadJwksFile(settings.jwtJwksFile);
  const nothingElse = settings.apiKeys === undefined && !keys && settings.jwtSecret === undefined && !jwks;
  const generatedKey = nothingElse ? await generateKey(keptKeyFile) : undefined;
  const access = createAccess({
    apiKeys: generatedKey ? [generatedKey] : (settings.apiKeys ?? []),
    keys: keys?.keys,
    tokens: { secret: settings.jwtSecret, jwks, maxTtlSeconds: settings.jwtMaxTtlSeconds },
  });
  const keysReload = settings.keysFile === undefined ? undefined : startKeysReload({ access, path: settings.keysFile, log });
  return { access, ...(generatedKey ? { generatedKey } : {}), ...(keysReload ? { keysReload } : {}) };
}

async function generateKey(keptKeyFile: string | undefined): Promise<string> {
  const kept = keptKeyFile === undefined ? '' : await readFile(keptKeyFile, 'utf8').then((text) => text.trim(), () => '');
  if (kept !== '') return kept;
  const key = randomBytes(18).toString('base64url');
  // Owner-only, as any file holding a credential.
  if (keptKeyFile !== undefined) await writeFile(keptKeyFile, `${key}\n`, { mode: 0o600 });
  return key;
}
