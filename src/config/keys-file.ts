/**
 * The keys file (CANNERY_KEYS_FILE, schemas/keys.schema.json): scoped API keys, each stored as
 * the SHA-256 of the key, never the key. Parsed and validated like an endpoint file, with every
 * problem at its file and line.
 */
import { readFile } from 'node:fs/promises';
import type { Problem } from '../core/types.js';
import { schemaValidator } from './json-schema.js';
import { schemaProblems } from './schema-problems.js';
import { readYaml, type YamlSource } from './yaml-source.js';

export const KEYS_SCHEMA_URL = new URL('../../schemas/keys.schema.json', import.meta.url);
const validateKeysData = schemaValidator(KEYS_SCHEMA_URL);

/**
 * What a key's or a token's name may hold (the schema says the same): it is written into log
 * lines and metric labels as it is, so nothing in it needs escaping.
 */
export const CREDENTIAL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,63}$/;

/** Every endpoint, in a key's `endpoints` or a token's scope. */
export const EVERY_ENDPOINT = '*';

export interface KeyEntry {
  name: string;
  /** The key's SHA-256, 64 lowercase hex digits. */
  sha256: string;
  /** Names, UUIDs or EVERY_ENDPOINT. */
  endpoints: string[];
  /** Fixed parameter values, as text (a YAML number or boolean as the caller would write it). */
  params: Record<string, string>;
  /** Milliseconds since the epoch after which the key is refused; absent: never. */
  expiresAt?: number;
  ratePerSecond?: number;
  /** Sources the key may send events to, or EVERY_ENDPOINT; absent or empty: none (docs/ingest.md). */
  ingest?: string[];
}

export interface KeysFileResult {
  /** Present exactly when `problems` is empty. */
  keys?: KeyEntry[];
  problems: Problem[];
}

interface KeyData {
  name: string;
  sha256: string;
  endpoints: string[];
  params: Record<string, string | number | boolean>;
  expires_at?: string;
  rate_per_second?: number;
  ingest?: string[];
}

/** Parses and validates a keys file's text; `file` names it in problems. */
export function parseKeysFile(text: string, file: string): KeysFileResult {
  const source = readYaml(text, file);
  if (source.problems.length > 0) return { problems: source.problems };
  const errors = validateKeysData(source.data);
  if (errors.length > 0) return { problems: schemaProblems(errors, source, file, 'a mapping with a list of keys') };
  const entries = ((source.data as { keys: KeyData[] | null }).keys ?? []);
  const problems = ruleProblems(entries, source, file);
  if (problems.length > 0) return { problems };
  return { keys: entries.map(keyEntry), problems: [] };
}

/** Reads and parses the keys file at `path`; a file that cannot be read is one problem. */
export async function loadKeysFile(path: string): Promise<KeysFileResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return { problems: [{ file: path, line: 1, message: `cannot read the keys file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` }] };
  }
  return parseKeysFile(text, path);
}

/** Rules the schema cannot state: they compare entries, or read a timestamp's calendar. */
function ruleProblems(entries: readonly KeyData[], source: YamlSource, file: string): Problem[] {
  const problems: Problem[] = [];
  const names = new Map<string, number>();
  const hashes = new Map<string, number>();
  entries.forEach((entry, index) => {
    const at = (field: string) => source.lineOf(['keys', index, field]);
    const firstName = names.get(entry.name);
    if (firstName !== undefined) {
      problems.push({ file, line: at('name'), field: `keys[${index}].name`, message: `key name "${entry.name}" is already used by keys[${firstName}]; names must be unique (logs and metrics tell keys apart by them)` });
    } else names.set(entry.name, index);
    const firstHash = hashes.get(entry.sha256);
    if (firstHash !== undefined) {
      problems.push({ file, line: at('sha256'), field: `keys[${index}].sha256`, message: `keys[${index}] has the same sha256 as keys[${firstHash}]: one key cannot have two scopes` });
    } else hashes.set(entry.sha256, index);
    if (entry.expires_at !== undefined && zonedTimeMs(entry.expires_at) === undefined) {
      problems.push({ file, line: at('expires_at'), field: `keys[${index}].expires_at`, message: `keys[${index}].expires_at is not a date and time that exists (got "${entry.expires_at}")` });
    }
  });
  return problems.sort((a, b) => a.line - b.line);
}

function keyEntry(data: KeyData): KeyEntry {
  const entry: KeyEntry = {
    name: data.name,
    sha256: data.sha256,
    endpoints: data.endpoints,
    params: Object.fromEntries(Object.entries(data.params).map(([name, value]) => [name, String(value)])),
    ingest: data.ingest ?? [],
  };
  if (data.expires_at !== undefined) entry.expiresAt = zonedTimeMs(data.expires_at);
  if (data.rate_per_second !== undefined) entry.ratePerSecond = data.rate_per_second;
  return entry;
}

/**
 * Milliseconds since the epoch of a timestamp the schema's pattern accepted, or undefined for a
 * day or time that does not exist (Date.parse would roll February 30 over into March).
 */
export function zonedTimeMs(text: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?/.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0)) as [number, number, number, number, number, number];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}
