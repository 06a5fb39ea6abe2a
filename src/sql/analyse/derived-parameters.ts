/**
 * The values of derived parameters (tree.ts): what the engine binds, on each request, for the
 * parameters a dialect's rewrite added, from the caller's own values. Worked out here, in one
 * place, so the SQL text never holds anything the caller sent.
 */
import { requiredLiterals } from './regex-literals.js';
import type { DerivedParameter } from '../parse/tree.js';

export type DerivedValue = string | boolean | null;

export function derivedValue(spec: DerivedParameter, source: unknown): DerivedValue {
  const required = typeof source === 'string' ? requiredLiterals(source) : undefined;
  if (spec.kind === 'literals_exact') return required?.exact ?? false;
  // With nothing required, the first test is `strpos(x, '') > 0`: true for any text.
  if (required === undefined) return spec.index === 0 ? '' : null;
  return required.literals[spec.index] ?? null;
}

/** `values` with the derived parameters' values added. */
export function withDerivedValues<T>(derived: Readonly<Record<string, DerivedParameter>>, values: Readonly<Record<string, T>>): Record<string, T | DerivedValue> {
  const names = Object.keys(derived);
  if (names.length === 0) return values;
  const all: Record<string, T | DerivedValue> = { ...values };
  for (const name of names) all[name] = derivedValue(derived[name]!, values[derived[name]!.of]);
  return all;
}
