/**
 * Which storage layout a source table is in, kept in the table's comment (`COMMENT ON TABLE`), so an
 * older file is told apart from a newer one without reading its rows (docs/storage.md):
 *
 * 1. every record a list of structs (no comment: tables written before layout 2);
 * 2. a record stored as one STRUCT while each value has held exactly one object, rows of an import
 *    in time order; `cannery compact` brings a table from 1 to 2.
 *
 * The SQL generator does not depend on the number: it reads how each record is stored from the
 * table's column types. The number says whether `cannery compact` has anything to do, and refuses a
 * table written by a newer cannery, whose layout this one could misread.
 */

export const CURRENT_LAYOUT = 2;

const KEY = 'cannery_layout';

export function layoutComment(layout: number): string {
  return JSON.stringify({ [KEY]: layout });
}

/** The layout a table's comment names; 1 for a table without one (written before layouts were named). */
export function layoutOfComment(comment: string | null | undefined): number {
  if (!comment) return 1;
  try {
    const parsed: unknown = JSON.parse(comment);
    const layout = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>)[KEY] : undefined;
    return typeof layout === 'number' && Number.isSafeInteger(layout) && layout > 0 ? layout : 1;
  } catch {
    return 1;
  }
}
