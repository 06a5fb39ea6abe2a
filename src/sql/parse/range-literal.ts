/**
 * A RANGE literal, `RANGE<DATE> '[2020-01-01, UNBOUNDED)'`, read as the call it means:
 * `RANGE(DATE '2020-01-01', CAST(NULL AS DATE))`. GoogleSQL's text of a range is `[start, end)`,
 * each bound a value of the element type's literal text or UNBOUNDED (NULL reads the same): one
 * tree for both spellings, so each backend writes a range one way (BigQuery's RANGE() checks
 * start < end as the literal does).
 */
import type { Expr, Literal } from './tree.js';

const ELEMENT_TYPES: Readonly<Record<string, Literal['type']>> = { DATE: 'date', DATETIME: 'datetime', TIMESTAMP: 'timestamp' };

/** `[a, b)`: a bound runs to the comma (no bound's text holds one). */
const RANGE_TEXT = /^\[([^,]*),([^,]*)\)$/;

/** The RANGE call a literal of `elementType` and `text` means, or an invalid node with BigQuery's message for text that is no range. */
export function rangeFromText(elementType: string, text: string, loc: Expr['loc']): Expr {
  const invalid = (what: string): Expr => ({ kind: 'unknown', what, invalid: true, loc });
  const type = ELEMENT_TYPES[elementType.toUpperCase()];
  const bounds = RANGE_TEXT.exec(text);
  if (type === undefined || bounds === null) return invalid(`Invalid RANGE literal: ${text} (a RANGE is written [start, end), either bound UNBOUNDED)`);
  const bound = (written: string): Expr => {
    const value = written.trim();
    if (value === '') return { kind: 'literal', type: 'null', value: null, loc };
    if (/^(UNBOUNDED|NULL)$/i.test(value)) return { kind: 'cast', safe: false, operand: { kind: 'literal', type: 'null', value: null, loc }, type: { name: elementType.toUpperCase() }, loc };
    return { kind: 'literal', type, value, loc };
  };
  const [start, end] = [bound(bounds[1]!), bound(bounds[2]!)];
  if ((start.kind === 'literal' && start.type === 'null') || (end.kind === 'literal' && end.type === 'null')) {
    return invalid(`Invalid RANGE literal: ${text} (a bound is a value or UNBOUNDED)`);
  }
  return { kind: 'call', name: 'range', args: [start, end], loc };
}
