/**
 * What the wire format says about a column's values, read off the values themselves (a result
 * carries no types): TIMESTAMP is integer Unix microseconds, DATETIME and DATE are strings of
 * fixed shapes (docs/http.md, "Values on the wire").
 */
import type { WireRow, WireValue } from '../../src/core/types.js';

export type ColumnKind = 'timestamp' | 'datetime' | 'date' | 'number' | 'nested' | 'text';

/**
 * Microseconds from 2000 to 2100. An integer column whose every value falls there is read as a
 * TIMESTAMP: counts and sizes are rarely 16 digits, and the raw value stays a hover away.
 */
const TIMESTAMP_MICROS = { min: 946_684_800_000_000, max: 4_102_444_800_000_000 };
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function columnKind(rows: readonly WireRow[], column: string): ColumnKind {
  const values = rows.map((row) => row[column]).filter((value): value is Exclude<WireValue, null> => value !== null && value !== undefined);
  if (values.length === 0) return 'text';
  if (values.every((value) => typeof value === 'number')) {
    return values.every((value) => Number.isInteger(value) && value >= TIMESTAMP_MICROS.min && value <= TIMESTAMP_MICROS.max) ? 'timestamp' : 'number';
  }
  if (values.every((value) => typeof value === 'string' && DATETIME.test(value))) return 'datetime';
  if (values.every((value) => typeof value === 'string' && DATE.test(value))) return 'date';
  if (values.some((value) => typeof value === 'object')) return 'nested';
  return 'text';
}

/** `2024-05-01 12:00:00.123456 UTC`; the fraction only when it is not zero. */
export function formatTimestamp(micros: number): string {
  const fraction = ((micros % 1_000_000) + 1_000_000) % 1_000_000;
  const seconds = new Date((micros - fraction) / 1000).toISOString().slice(0, 19).replace('T', ' ');
  return `${seconds}${fraction ? `.${String(fraction).padStart(6, '0')}` : ''} UTC`;
}

/** Seconds since the epoch of a time value of `kind` (DATETIME and DATE read as UTC), for charts. */
export function epochSeconds(value: WireValue, kind: ColumnKind): number | undefined {
  if (kind === 'timestamp' && typeof value === 'number') return value / 1_000_000;
  if (kind === 'datetime' && typeof value === 'string') return Date.parse(`${value}Z`) / 1000;
  if (kind === 'date' && typeof value === 'string') return Date.parse(`${value}T00:00:00Z`) / 1000;
  return undefined;
}

export function isTimeKind(kind: ColumnKind): boolean {
  return kind === 'timestamp' || kind === 'datetime' || kind === 'date';
}
