/** CLI flags override the environment's settings. */
import { memorySize, readSettings, type Settings } from '../config/settings.js';
import type { Flags } from './command.js';

export function settingsWithFlags(flags: Flags): Settings {
  const settings = readSettings();
  if (typeof flags.endpoints === 'string') settings.endpointsDir = flags.endpoints;
  if (typeof flags.sources === 'string') settings.sourcesDir = flags.sources;
  if (typeof flags.db === 'string') settings.dbPath = flags.db;
  if (typeof flags.host === 'string') settings.host = flags.host;
  if (typeof flags['memory-limit'] === 'string') settings.loadMemoryLimit = memorySize('--memory-limit', flags['memory-limit']);
  if (typeof flags.port === 'string') {
    const port = Number(flags.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a whole number from 0 to 65535 (got "${flags.port}")`);
    settings.port = port;
  }
  return settings;
}

export function positiveInteger(flag: string, raw: string | boolean | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`--${flag} must be a positive whole number (got "${String(raw)}")`);
  return value;
}
