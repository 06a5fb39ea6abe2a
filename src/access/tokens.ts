/**
 * Signed tokens (JWT), verified with jose: HS256 with CANNERY_JWT_SECRET, RS256 and ES256 with
 * the public keys of CANNERY_JWT_JWKS_FILE. The algorithms are fixed by what is configured, never
 * read from the token, so `alg: none` and a token signed with a public key as an HMAC secret are
 * refused. `exp` is required, and at most CANNERY_JWT_MAX_TTL away: a token cannot be revoked
 * before it, so an `exp` far off (`1e300`) would make it a key that never ends. Every refusal is a
 * 401 that says why without repeating the token.
 */
import type { JSONWebKeySet, JWTPayload, JWTVerifyGetKey } from 'jose';
import { durationText } from '../config/durations.js';
import { CREDENTIAL_NAME } from '../config/keys-file.js';
import { DEFAULTS } from '../config/settings.js';
import type { JsonWebKeys } from '../config/jwks-file.js';
import { CanneryError } from '../core/errors.js';
import { grantOf, type Grant, type Scope } from './grant.js';

export interface TokenKeys {
  /** CANNERY_JWT_SECRET: HS256. */
  secret?: string | undefined;
  /** CANNERY_JWT_JWKS_FILE's keys: RS256 and ES256. */
  jwks?: JsonWebKeys | undefined;
  /** CANNERY_JWT_MAX_TTL, in seconds (default DEFAULTS.jwtMaxTtlSeconds). */
  maxTtlSeconds?: number | undefined;
}

/**
 * How far a minter's clock may run ahead of the service's: a token minted to live exactly the
 * longest allowed is not refused for its first seconds.
 */
const CLOCK_SKEW_SECONDS = 60;

/** A verified token's grant, and when it expires (milliseconds since the epoch). */
export interface VerifiedToken {
  grant: Grant;
  expiresAt: number;
}

export type TokenCheck = (token: string, nowMs: number) => Promise<VerifiedToken>;

/** Three base64url parts: a JWS in compact form. */
export function looksLikeToken(presented: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(presented);
}

type Jose = typeof import('jose');
let jose: Promise<Jose> | undefined;

/** jose, loaded once a token can be checked or signed: a service without tokens never loads it (about 50 ms of every start). */
function loadJose(): Promise<Jose> {
  return (jose ??= import('jose'));
}

/** The check of the configured keys; undefined when none is configured (tokens are then invalid keys). */
export function tokenCheck(keys: TokenKeys): TokenCheck | undefined {
  const algorithms: string[] = [];
  const secret = keys.secret === undefined ? undefined : new TextEncoder().encode(keys.secret);
  if (secret) algorithms.push('HS256');
  if (keys.jwks !== undefined) algorithms.push('RS256', 'ES256');
  if (algorithms.length === 0) return undefined;
  const maxTtl = keys.maxTtlSeconds ?? DEFAULTS.jwtMaxTtlSeconds;
  // Loaded as the service starts, not at its first token.
  const ready = loadJose().then((lib) => {
    const jwks = keys.jwks === undefined ? undefined : lib.createLocalJWKSet(keys.jwks as JSONWebKeySet);
    // jose checks the header's alg against `algorithms` before it asks for a key.
    const key: JWTVerifyGetKey = (header, token) => (header.alg === 'HS256' ? secret! : jwks!(header, token));
    return { lib, key };
  });
  ready.catch(() => undefined); // a failure is the first check's to throw
  return async (token, nowMs) => {
    const { lib, key } = await ready;
    let payload: JWTPayload;
    try {
      ({ payload } = await lib.jwtVerify(token, key, { algorithms, requiredClaims: ['exp'], currentDate: new Date(nowMs) }));
    } catch (error) {
      throw refusal(lib.errors, error, algorithms);
    }
    checkLifetime(payload, nowMs, maxTtl);
    return { grant: grantOfClaims(payload, token), expiresAt: payload.exp! * 1000 };
  };
}

/**
 * A token lives at most `maxTtl` seconds: its `exp` at most that after its `iat` (when it has
 * one), and, whatever `iat` says, at most that after now, so a made-up `iat` gains nothing.
 */
function checkLifetime(payload: JWTPayload, nowMs: number, maxTtl: number): void {
  const exp = payload.exp!;
  const longest = durationText(maxTtl);
  if (payload.iat !== undefined && exp - payload.iat > maxTtl) {
    throw new CanneryError('unauthorized', `token claim "exp" is more than CANNERY_JWT_MAX_TTL (${longest}) after "iat"; mint tokens that live at most that long`);
  }
  if (exp - nowMs / 1000 > maxTtl + CLOCK_SKEW_SECONDS) {
    throw new CanneryError('unauthorized', `token claim "exp" is more than CANNERY_JWT_MAX_TTL (${longest}) from now; mint tokens that live at most that long`);
  }
}

function refusal(errors: Jose['errors'], error: unknown, algorithms: readonly string[]): CanneryError {
  const refused = (message: string) => new CanneryError('unauthorized', message, { cause: error });
  if (error instanceof errors.JWTExpired) return refused('token expired');
  if (error instanceof errors.JWTClaimValidationFailed) return refused(`token claim "${error.claim}" is ${error.reason === 'missing' ? 'missing' : 'not valid'}`);
  if (error instanceof errors.JWSSignatureVerificationFailed) return refused('token signature does not verify');
  if (error instanceof errors.JOSEAlgNotAllowed) return refused(`token algorithm not accepted; this service accepts ${algorithms.join(', ')}`);
  if (error instanceof errors.JWKSNoMatchingKey) return refused('no key of CANNERY_JWT_JWKS_FILE matches the token');
  return refused('malformed token');
}

function invalidClaim(message: string): CanneryError {
  return new CanneryError('unauthorized', `token claim ${message}`);
}

/** `scopes`, `name`, `rate_per_second` and `ingest` read strictly: a token a signer got wrong grants nothing. */
function grantOfClaims(payload: JWTPayload, token: string): Grant {
  const { scopes, name, rate_per_second: rate, ingest = [] } = payload as { scopes?: unknown; name?: unknown; rate_per_second?: unknown; ingest?: unknown };
  if (!Array.isArray(scopes)) throw invalidClaim('"scopes" must be a list of {endpoint, params}');
  const read = scopes.map((scope: unknown, index): Scope => {
    const { endpoint, params = {} } = (typeof scope === 'object' && scope !== null ? scope : {}) as { endpoint?: unknown; params?: unknown };
    if (typeof endpoint !== 'string' || endpoint === '') throw invalidClaim(`"scopes[${index}].endpoint" must be an endpoint's name or UUID, or "*"`);
    if (typeof params !== 'object' || params === null || Array.isArray(params)) throw invalidClaim(`"scopes[${index}].params" must be an object of parameter values`);
    // fromEntries, not assignment: a parameter named __proto__ stays a parameter.
    const fixed = Object.entries(params).map(([param, value]): [string, string] => {
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
        throw invalidClaim(`"scopes[${index}].params.${param}" must be a string, number or boolean`);
      }
      return [param, String(value)];
    });
    return { endpoint, params: Object.fromEntries(fixed) };
  });
  if (name !== undefined && (typeof name !== 'string' || !CREDENTIAL_NAME.test(name))) {
    throw invalidClaim('"name" must be 1 to 64 letters, digits or . _ : @ -, starting with a letter or digit');
  }
  if (rate !== undefined && (typeof rate !== 'number' || !(rate > 0) || !Number.isFinite(rate))) throw invalidClaim('"rate_per_second" must be a number above 0');
  if (!Array.isArray(ingest) || !ingest.every((source) => typeof source === 'string' && source !== '')) throw invalidClaim('"ingest" must be a list of source names, or ["*"]');
  // Each token its own rate: the signature tells tokens apart.
  return grantOf(typeof name === 'string' ? name : 'token', read, rate as number | undefined, `token ${token.slice(token.lastIndexOf('.') + 1)}`, ingest as string[]);
}

export interface TokenClaims {
  scopes: Scope[];
  /** Seconds from now until `exp`. */
  ttlSeconds: number;
  name?: string | undefined;
  ratePerSecond?: number | undefined;
  /** Sources the token may send events to, or `*`. */
  ingest?: string[] | undefined;
}

/** An HS256 token with these claims, as an app's backend would mint one (docs/access.md); `cannery token` prints it. */
export async function signToken(secret: string, claims: TokenClaims, nowMs: number = Date.now()): Promise<string> {
  const { SignJWT } = await loadJose();
  const payload: JWTPayload = { scopes: claims.scopes };
  if (claims.name !== undefined) payload.name = claims.name;
  if (claims.ratePerSecond !== undefined) payload.rate_per_second = claims.ratePerSecond;
  if (claims.ingest !== undefined) payload.ingest = claims.ingest;
  const issuedAt = Math.floor(nowMs / 1000);
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + claims.ttlSeconds)
    .sign(new TextEncoder().encode(secret));
}
