/** What a credential allows: a key's entry or a token's claims, in one shape. */
import { EVERY_ENDPOINT } from '../config/keys-file.js';

/** One endpoint (a name, a UUID or `*`) with the parameter values fixed for it. */
export interface Scope {
  endpoint: string;
  /** Fixed values, as text; a caller may send the same value or none. */
  params: Readonly<Record<string, string>>;
}

export interface Grant {
  /** Shown in request logs and metrics in place of the credential, which is never shown. */
  name: string;
  /** Read in order: the first scope that allows a request fills in its fixed values. */
  scopes: readonly Scope[];
  /**
   * Every endpoint with nothing fixed, in one scope: a key of CANNERY_API_KEYS, or an entry of the
   * keys file with the default endpoints and no params. Nothing is checked per endpoint for it.
   */
  unscoped: boolean;
  /** Requests per second; absent: no limit of its own. */
  ratePerSecond?: number;
  /** The rate's bucket: one per key name, one per token. Never shown. */
  rateKey: string;
  /**
   * Sources the credential may send events to (docs/ingest.md), or EVERY_ENDPOINT's `*` for all;
   * empty for every credential that is not given an `ingest` scope, unscoped keys among them.
   */
  ingest: readonly string[];
}

export function grantOf(name: string, scopes: readonly Scope[], ratePerSecond: number | undefined, rateKey: string, ingest: readonly string[] = []): Grant {
  const unscoped = scopes.length === 1 && allowsEverything(scopes[0]!);
  return ratePerSecond === undefined ? { name, scopes, unscoped, rateKey, ingest } : { name, scopes, unscoped, ratePerSecond, rateKey, ingest };
}

/** Whether the grant may send events to `source`: its `ingest` scope names it, or is `*`. */
export function mayIngest(grant: Grant, source: string): boolean {
  return grant.ingest.some((allowed) => allowed === EVERY_ENDPOINT || allowed === source);
}

/** Whether the grant may run every endpoint with any value: what the metrics, which show them all, ask. */
export function mayReadEverything(grant: Grant): boolean {
  return grant.scopes.some(allowsEverything);
}

function allowsEverything(scope: Scope): boolean {
  return scope.endpoint === EVERY_ENDPOINT && Object.keys(scope.params).length === 0;
}
