/**
 * `SVC-ENDPOINT-REDACT-PII` (DESIGN.md): a request can turn PII redaction on, never off.
 * This only reads what the request asks for; the service combines it with the endpoint's setting.
 */
import { CanneryError } from '../core/errors.js';
import type { HeaderReader } from './auth.js';

export const REDACTION_HEADER = 'SVC-ENDPOINT-REDACT-PII';
const LOWERCASE_NAME = REDACTION_HEADER.toLowerCase();

/** Longest piece of a bad value echoed back in the error message. */
const SHOWN_CHARS = 40;

/**
 * True for `true`, false for `false` or no header; letter case and the surrounding whitespace
 * HTTP does not count as part of a value are ignored. Anything else is a 400, including an empty
 * value and a header given twice (which arrives comma-joined, `true, true`): a caller who sends
 * the header means something by it, and guessing wrong could leak what it meant to hide.
 */
export function requestsRedaction(headers: HeaderReader): boolean {
  const raw = headers.get(LOWERCASE_NAME);
  if (raw === null) return false;
  const value = raw.trim().toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  const shown = raw.length > SHOWN_CHARS ? `${raw.slice(0, SHOWN_CHARS)}...` : raw;
  const twice = value.includes(',') ? ' (was it sent more than once?)' : '';
  throw new CanneryError(
    'invalid_header',
    `${REDACTION_HEADER} must be true or false (in any letter case), given once; got ${JSON.stringify(shown)}${twice}`,
  );
}
