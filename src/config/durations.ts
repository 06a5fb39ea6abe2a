/** Lengths of time as people write them (`90s`, `15m`, `24h`, `30d`): settings and CLI flags read them alike. */

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** The seconds of `90s`, `15m`, `1h` or `30d`; undefined for anything else, or for none. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)([smhd])$/.exec(text);
  const seconds = match ? Number(match[1]) * UNIT_SECONDS[match[2]!]! : 0;
  return seconds > 0 && Number.isSafeInteger(seconds) ? seconds : undefined;
}

/** `seconds` as written back in the largest unit that holds it whole (days from two on): `24h`, `7d`, `90m`. */
export function durationText(seconds: number): string {
  if (seconds % 86_400 === 0 && seconds >= 2 * 86_400) return `${seconds / 86_400}d`;
  for (const [unit, size] of [['h', 3600], ['m', 60]] as const) {
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}
