/**
 * A FLOAT64 on the wire, the same from every backend: a JSON number when finite; NaN and the
 * infinities, which JSON has no number for, the strings BigQuery's REST API writes for them
 * (`"NaN"`, `"Infinity"`, `"-Infinity"`, docs/http.md). JSON.stringify would write `null`, which
 * no caller can tell from a NULL.
 */
export type NonFiniteText = 'NaN' | 'Infinity' | '-Infinity';

export function wireFloat(value: unknown): number | NonFiniteText {
  const number = Number(value);
  if (Number.isFinite(number)) return number;
  return Number.isNaN(number) ? 'NaN' : number > 0 ? 'Infinity' : '-Infinity';
}

/** Whether a text is one of the three BigQuery writes for a non-finite FLOAT64. */
export function isNonFiniteText(text: string): text is NonFiniteText {
  return text === 'NaN' || text === 'Infinity' || text === '-Infinity';
}
