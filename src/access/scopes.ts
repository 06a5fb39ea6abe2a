/**
 * A grant's scopes applied to one endpoint: whether it may run it, which values are fixed for it,
 * and a request's parameters with those values filled in. A fixed value reaches every place a
 * parameter does (the endpoint's SQL, the CTEs sandbox SQL reads, the cache key, warming) because
 * it is filled in here, before the service reads the parameters: nothing downstream can tell it
 * from a value the caller sent.
 */
import { EVERY_ENDPOINT } from '../config/keys-file.js';
import { CanneryError } from '../core/errors.js';
import type { EndpointDefinition } from '../core/types.js';
import { readParamValue } from '../engine/serve/params.js';
import type { Grant, Scope } from './grant.js';

/** The grant's scopes for `definition`, in order; why there are none, when there are none. */
function scopesFor(grant: Grant, definition: EndpointDefinition): { scopes: Scope[]; undeclared?: string } {
  const scopes: Scope[] = [];
  let undeclared: string | undefined;
  for (const scope of grant.scopes) {
    if (!names(scope, definition)) continue;
    // A value fixed for a parameter the endpoint does not take could not limit its answer.
    const missing = Object.keys(scope.params).find((param) => !Object.hasOwn(definition.params, param));
    if (missing === undefined) scopes.push(scope);
    else undeclared ??= missing;
  }
  return undeclared === undefined ? { scopes } : { scopes, undeclared };
}

function names(scope: Scope, definition: EndpointDefinition): boolean {
  return scope.endpoint === EVERY_ENDPOINT || scope.endpoint === definition.name || scope.endpoint.toLowerCase() === definition.id.toLowerCase();
}

/** Whether the grant may run the endpoint with some values: what /api/endpoints and /openapi.json list. */
export function mayRun(grant: Grant, definition: EndpointDefinition): boolean {
  return grant.unscoped || scopesFor(grant, definition).scopes.length > 0;
}

/**
 * For each parameter that every scope of the endpoint fixes, the values they fix it to (one value:
 * the parameter is fixed); undefined when nothing is fixed. What a caller is shown.
 */
export function fixedValues(grant: Grant, definition: EndpointDefinition): Record<string, string[]> | undefined {
  if (grant.unscoped) return undefined;
  const { scopes } = scopesFor(grant, definition);
  const [first, ...rest] = scopes;
  if (!first) return undefined;
  const fixed: Record<string, string[]> = {};
  for (const param of Object.keys(first.params)) {
    if (!rest.every((scope) => Object.hasOwn(scope.params, param))) continue;
    fixed[param] = [...new Set(scopes.map((scope) => scope.params[param]!))];
  }
  return Object.keys(fixed).length > 0 ? fixed : undefined;
}

/** 403 unless the grant may run the endpoint: checked as soon as it is resolved, before any parameter is read. */
export function checkEndpoint(grant: Grant, definition: EndpointDefinition): void {
  if (grant.unscoped) return;
  const { scopes, undeclared } = scopesFor(grant, definition);
  if (scopes.length > 0) return;
  if (undeclared !== undefined) {
    throw new CanneryError(
      'forbidden',
      `${grant.name} fixes parameter "${undeclared}", which ${definition.name} does not take, so its answers could not be limited to that value`,
    );
  }
  throw new CanneryError('forbidden', `${grant.name} may not run ${definition.name}`);
}

/**
 * The request's parameters under the grant: the first scope whose fixed values the request
 * leaves out or repeats fills in the ones it leaves out; a value other than every scope's fixed
 * one is a 403 naming the parameter, never silently replaced.
 */
export function scopedParams(grant: Grant, definition: EndpointDefinition, entries: [string, string][]): [string, string][] {
  if (grant.unscoped) return entries;
  const { scopes } = scopesFor(grant, definition);
  // None: the endpoint is outside the grant, and checkEndpoint throws saying why.
  if (scopes.length === 0) checkEndpoint(grant, definition);
  let refused = '';
  for (const scope of scopes) {
    const clash = Object.keys(scope.params).find((param) => !sameOrAbsent(definition, param, scope.params[param]!, entries));
    if (clash === undefined) return withFixed(scope, entries);
    refused ||= clash;
  }
  throw new CanneryError('forbidden', `parameter "${refused}" is fixed for ${grant.name}: send ${fixedText(scopes, refused)}, or leave it out`, { param: refused });
}

function fixedText(scopes: readonly Scope[], param: string): string {
  const values = [...new Set(scopes.flatMap((scope) => (Object.hasOwn(scope.params, param) ? [JSON.stringify(scope.params[param])] : [])))];
  return values.join(' or ');
}

/** Whether every value the request gives `param` (an empty one is none) means `fixed`. */
function sameOrAbsent(definition: EndpointDefinition, param: string, fixed: string, entries: readonly [string, string][]): boolean {
  for (const [name, value] of entries) {
    if (name !== param || value === '' || value === fixed) continue;
    if (!sameValue(definition, param, value, fixed)) return false;
  }
  return true;
}

/** Equal once read as the endpoint reads them (`2024-05-01T14:00:00+02:00` is `2024-05-01T12:00:00Z`). */
function sameValue(definition: EndpointDefinition, param: string, value: string, fixed: string): boolean {
  const spec = definition.params[param]!;
  try {
    return readParamValue(param, spec, value) === readParamValue(param, spec, fixed);
  } catch {
    return false;
  }
}

/** The entries with each fixed value the request left out (or sent empty) filled in. */
function withFixed(scope: Scope, entries: [string, string][]): [string, string][] {
  const fixed = Object.keys(scope.params);
  if (fixed.length === 0) return entries;
  const given = new Set(entries.filter(([, value]) => value !== '').map(([name]) => name));
  const kept = entries.filter(([name, value]) => value !== '' || !Object.hasOwn(scope.params, name));
  for (const param of fixed) if (!given.has(param)) kept.push([param, scope.params[param]!]);
  return kept;
}
