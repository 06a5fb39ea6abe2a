/** Who may call the service, from settings: CANNERY_API_KEYS, the keys file (re-read while serving), the token keys. */
import { randomBytes } from 'node:crypto';
import { createAccess, type Access } from '../access/access.js';
import { startKeysReload, type KeysReload } from '../access/keys-reload.js';
import { loadJwksFile } from '../config/jwks-file.js';
import { loadKeysFile } from '../config/keys-file.js';
import { formatProblem } from '../config/problem-line.js';
import type { Settings } from '../config/settings.js';

export interface OpenedAccess {
  access: Access;
  /** A key made for this run, when nothing else lets anyone in: printed once, kept nowhere. */
  generatedKey?: string;
  /** The keys file's watch; absent without a keys file. */
  keysReload?: KeysReload;
}

export async function openAccess(settings: Settings, log: (line: string) => void): Promise<OpenedAccess> {
  const keys = settings.keysFile === undefined ? undefined : await loadKeysFile(settings.keysFile);
  if (keys && !keys.keys) throw new Error(`the keys file has problems:\n${keys.problems.map(formatProblem).join('\n')}`);
  const jwks = settings.jwtJwksFile === undefined ? undefined : await loadJwksFile(settings.jwtJwksFile);
  const nothingElse = settings.apiKeys === undefined && !keys && settings.jwtSecret === undefined && !jwks;
  const generatedKey = nothingElse ? randomBytes(18).toString('base64url') : undefined;
  const access = createAccess({
    apiKeys: generatedKey ? [generatedKey] : (settings.apiKeys ?? []),
    keys: keys?.keys,
    tokens: { secret: settings.jwtSecret, jwks },
  });
  const keysReload = settings.keysFile === undefined ? undefined : startKeysReload({ access, path: settings.keysFile, log });
  return { access, ...(generatedKey ? { generatedKey } : {}), ...(keysReload ? { keysReload } : {}) };
}
