/** The flags `keys new` and `token` share: what a credential may run, with which fixed values, how often, for how long, and where it may send events. */
import { parseDuration } from '../config/durations.js';
import { CREDENTIAL_NAME, EVERY_ENDPOINT } from '../config/keys-file.js';
import type { Flags } from './command.js';

export const SCOPE_OPTIONS = {
  endpoint: { type: 'string', multiple: true },
  param: { type: 'string', multiple: true },
  rate: { type: 'string' },
  ingest: { type: 'string', multiple: true },
} as const;

export interface ScopeFlags {
  endpoints: string[];
  params: Record<string, string>;
  ratePerSecond: number | undefined;
  /** Sources the credential may send events to (docs/ingest.md), or `*`; none unless given. */
  ingest: string[];
}

/** parseArgs gives a `multiple` option's values as a list, which Flags' type does not say. */
function list(value: Flags[string]): string[] {
  const values: unknown = value;
  return Array.isArray(values) ? values.map(String) : typeof values === 'string' ? [values] : [];
}

export function scopeFlags(flags: Flags): ScopeFlags {
  const endpoints = list(flags.endpoint);
  const pairs = list(flags.param).map((pair): [string, string] => {
    const at = pair.indexOf('=');
    const name = pair.slice(0, at);
    if (at < 1 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`--param takes name=value, with a parameter's name (got "${pair}")`);
    return [name, pair.slice(at + 1)];
  });
  const repeated = pairs.find(([name], index) => pairs.findIndex(([other]) => other === name) !== index);
  if (repeated) throw new Error(`--param ${repeated[0]} is given twice; a key or token fixes one value per parameter`);
  const params = Object.fromEntries(pairs);
  let ratePerSecond: number | undefined;
  if (typeof flags.rate === 'string') {
    ratePerSecond = Number(flags.rate);
    if (!(ratePerSecond > 0) || !Number.isFinite(ratePerSecond)) throw new Error(`--rate must be a number of requests per second above 0 (got "${flags.rate}")`);
  }
  const ingest = list(flags.ingest);
  // A shipper's credential, given only --ingest, runs no endpoint: what it may do is what was asked.
  const defaultEndpoints = ingest.length > 0 ? [] : [EVERY_ENDPOINT];
  return { endpoints: endpoints.length > 0 ? endpoints : defaultEndpoints, params, ratePerSecond, ingest };
}

export function checkName(name: string): void {
  if (!CREDENTIAL_NAME.test(name)) throw new Error(`a name is 1 to 64 letters, digits or . _ : @ -, starting with a letter or digit (got "${name}")`);
}

/** `90s`, `15m`, `1h`, `30d`: a length of time, in seconds. */
export function durationSeconds(flag: string, text: string): number {
  const seconds = parseDuration(text);
  if (seconds === undefined) throw new Error(`--${flag} is a length of time such as 90s, 15m, 1h or 30d (got "${text}")`);
  return seconds;
}
