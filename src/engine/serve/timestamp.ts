/**
 * ISO 8601 timestamps as callers send them, checked and normalised before binding.
 *
 * Accepted: `YYYY-MM-DDTHH:MM[:SS[.fraction]]` followed by `Z` or an offset (`+02:00`, `+0200`,
 * `+02`); `T` may be `t` or a space (RFC 3339). A timestamp without a zone is refused: it
 * would mean different instants to different people. So is a fraction finer than microseconds
 * (more than MAX_FRACTION_DIGITS digits), as BigQuery refuses it: GoogleSQL's TIMESTAMP holds
 * microseconds, and its cast from a string takes no more digits than that (the stored query of
 * the system the spec describes casts this value itself). The result is the canonical UTC form
 * `YYYY-MM-DDTHH:MM:SS.ffffffZ`, which BigQuery and DuckDB both read as the same instant,
 * and which makes equal instants equal cache keys.
 */

/** Microseconds: the precision of both warehouses. */
export const MAX_FRACTION_DIGITS = 6;

// The fraction: one to MAX_FRACTION_DIGITS digits.
const ISO_TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,6}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Returns the canonical UTC form, or undefined when the text is not a valid zoned ISO 8601 timestamp. */
export function normaliseTimestamp(text: string): string | undefined {
  const match = ISO_TIMESTAMP.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s = '00', fraction = '', zulu, sign, offsetHours, offsetMinutes = '00'] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offset = 0;
  if (!zulu) {
    const oh = Number(offsetHours);
    const om = Number(offsetMinutes);
    if (oh > 23 || om > 59) return undefined;
    offset = (sign === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offset, second, 0);
  const utcYear = date.getUTCFullYear();
  if (utcYear < 1 || utcYear > 9999) return undefined;
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  const micros = fraction.padEnd(MAX_FRACTION_DIGITS, '0');
  return (
    `${pad(utcYear, 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}` +
    `T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}.${micros}Z`
  );
}

/** Unix microseconds of a zoned ISO 8601 timestamp, or undefined when the text is not one. */
export function timestampMicros(text: string): number | undefined {
  const canonical = normaliseTimestamp(text);
  if (canonical === undefined) return undefined;
  return Date.parse(`${canonical.slice(0, 19)}Z`) * 1000 + Number(canonical.slice(20, 26));
}

/** A TIMESTAMP's wire value (Unix microseconds) as ISO 8601 in UTC, with as many fraction digits as it needs. */
export function microsText(micros: number): string {
  const seconds = Math.floor(micros / 1_000_000);
  const fraction = micros - seconds * 1_000_000;
  const whole = new Date(seconds * 1000).toISOString().slice(0, 19);
  if (fraction === 0) return `${whole}Z`;
  const digits = String(fraction).padStart(6, '0');
  return `${whole}.${digits.endsWith('000') ? digits.slice(0, 3) : digits}Z`;
}
